package analytics

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"hash"
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

// visitorKey identifies the visitor of an event within a project: the
// caller's visitorId when given, otherwise a hash of IP and user agent keyed
// with the key of the event's UTC day, so no IP is stored and the same
// person on two days is two visitors.
// macs, one a UTC day, are reused across a batch: keying an HMAC costs
// as much as using it.
func (s *Service) visitorKey(ctx context.Context, projectID string, e Event, macs map[int64]hash.Hash) ([16]byte, error) {
	var key [16]byte
	if e.VisitorID != "" {
		sum := sha256.Sum256([]byte("visitor\x00" + projectID + "\x00" + e.VisitorID))
		copy(key[:], sum[:])
		return key, nil
	}
	day := utcDay(e.At.UnixMilli())
	m, ok := macs[day]
	if !ok {
		salt, err := s.salt(ctx, day)
		if err != nil {
			return key, err
		}
		m = hmac.New(sha256.New, salt)
		macs[day] = m
	}
	m.Reset()
	m.Write([]byte(projectID))
	m.Write([]byte{0})
	m.Write([]byte(e.IP))
	m.Write([]byte{0})
	m.Write([]byte(e.UserAgent))
	var sum [sha256.Size]byte
	copy(key[:], m.Sum(sum[:0]))
	return key, nil
}

// salt returns the key of a UTC day. Keys of days before yesterday are
// deleted from the database whenever a key is fetched from it, and
// forgotten here at the first fetch after 00:00 UTC, so the rotation also
// retires old keys; a late event for yesterday still finds yesterday's key.
// A key made for an old day (an imported log) lives only until then.
func (s *Service) salt(ctx context.Context, day int64) ([]byte, error) {
	s.mu.Lock()
	salt, ok := s.salts[day]
	s.mu.Unlock()
	if ok {
		return salt, nil
	}
	keepFrom := utcDay(s.now().UnixMilli()) - 1
	salt, err := s.db.AnalyticsSalt(ctx, day, keepFrom)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if keepFrom != s.saltsKeptFrom {
		for d := range s.salts {
			if d < keepFrom {
				delete(s.salts, d)
			}
		}
		s.saltsKeptFrom = keepFrom
	}
	s.salts[day] = salt
	return salt, nil
}
