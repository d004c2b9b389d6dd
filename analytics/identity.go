package analytics

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"time"
)

const dayMillis = 24 * 60 * 60 * 1000

// utcDay is the number of whole UTC days since the epoch at ms.
func utcDay(ms int64) int64 {
	d := ms / dayMillis
	if ms < 0 && ms%dayMillis != 0 {
		d--
	}
	return d
}

// visitorID identifies the visitor of an event within a project: the
// caller's visitorId when given, otherwise a hash of IP and user agent keyed
// with the key of the event's UTC day, so no IP is stored and the same
// person on two days is two visitors. The id is 62 bits of the hash: two
// visitors of a site share one with a chance of about n²/2⁶³ for n
// visitors (about 1 in 10⁷ for a million).
// macs, one a UTC day, are reused across a batch: keying an HMAC costs
// as much as using it.
func (s *Service) visitorID(ctx context.Context, projectID string, e Event, macs map[int64]hash.Hash) (int64, error) {
	var sum [sha256.Size]byte
	if e.VisitorID != "" {
		sum = sha256.Sum256([]byte("visitor\x00" + projectID + "\x00" + e.VisitorID))
		return idOf(sum), nil
	}
	day := utcDay(e.At.UnixMilli())
	m, ok := macs[day]
	if !ok {
		dk, err := s.dayKey(ctx, day)
		if err != nil {
			return 0, err
		}
		m = hmac.New(sha256.New, dk)
		macs[day] = m
	}
	m.Reset()
	m.Write([]byte(projectID))
	m.Write([]byte{0})
	m.Write([]byte(e.IP))
	m.Write([]byte{0})
	m.Write([]byte(e.UserAgent))
	m.Sum(sum[:0])
	return idOf(sum), nil
}

// idOf is an id from a hash: 62 of its bits, with bit 62 set so it is
// positive and never one of the small ids of the former visitors table.
func idOf(sum [sha256.Size]byte) int64 {
	return int64(binary.BigEndian.Uint64(sum[:8])>>2) | 1<<62
}

// dayKey returns the visitor-hash key of a UTC day: HMAC-SHA256 of the day
// number under the install's secret. It is one function of the day, so every
// process (another server, the same one after a restart, an import months
// later) gives the same visitor of that day the same id, and no key is
// stored but the secret.
func (s *Service) dayKey(ctx context.Context, day int64) ([]byte, error) {
	s.mu.Lock()
	key, ok := s.dayKeys[day]
	secret := s.secret
	s.mu.Unlock()
	if ok {
		return key, nil
	}
	if secret == nil {
		var err error
		if secret, err = s.db.AnalyticsSecret(ctx); err != nil {
			return nil, err
		}
	}
	m := hmac.New(sha256.New, secret)
	fmt.Fprintf(m, "folio visitor key of UTC day %d", day)
	key = m.Sum(nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secret = secret
	// Keys are cheap to derive again: an import of many old days must not
	// grow the cache without bound.
	if len(s.dayKeys) >= maxDayKeys {
		clear(s.dayKeys)
	}
	s.dayKeys[day] = key
	return key, nil
}

// maxDayKeys bounds the cache of derived day keys.
const maxDayKeys = 1024

// dayStart is the start of t's UTC day.
func dayStart(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
