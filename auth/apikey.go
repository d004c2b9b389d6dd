// Package auth issues and checks the credentials Folio accepts: API keys for
// programs and passwords for dashboard admins.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"hash/crc32"
	"math/big"
	"net/netip"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/folio-docs/folio/model"
)

// KeyPrefix starts every Folio API key, so secret scanners can find them.
const KeyPrefix = "folio_"

const (
	base62        = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	randomLen     = 30 // 30 base62 characters carry 178 random bits
	checksumLen   = 6  // a CRC32 in base62, zero-padded
	keyLen        = len(KeyPrefix) + randomLen + checksumLen
	touchInterval = time.Minute
)

// KeyNameRule is what a key's name must be, in the words the dashboard and
// the CLI show when one is refused.
const KeyNameRule = "Name the key after what uses it, in up to 100 characters."

const keyNameMax = 100 // bytes

// keyName is name as a key keeps it, trimmed of spaces, or model.ErrKeyName.
func keyName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > keyNameMax {
		return "", fmt.Errorf("%w: %s", model.ErrKeyName, KeyNameRule)
	}
	return name, nil
}

// Expiries a key may be given; 0 means never.
var Expiries = map[string]time.Duration{
	"7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour, "60d": 60 * 24 * time.Hour,
	"90d": 90 * 24 * time.Hour, "never": 0,
}

// KeyStore is what keys need from storage.
type KeyStore interface {
	CreateAPIKey(ctx context.Context, k model.APIKey) (model.APIKey, error)
	ProjectByID(ctx context.Context, id string) (model.Project, error)
	IsProjectMember(ctx context.Context, projectID, userID string) (bool, error)
	AuthKeyByHash(ctx context.Context, hash []byte) (model.APIKey, error)
	TouchAPIKey(ctx context.Context, keyID string, t time.Time) error
	APIKeysForProject(ctx context.Context, projectID string) ([]model.APIKey, error)
	RevokeAPIKey(ctx context.Context, projectID, keyID string) error
	// KeysVersion says how long a key read now stays true: while it
	// reads the same v, and only if ok.
	KeysVersion() (v uint64, ok bool)
}

// Keys issues and authenticates API keys.
type Keys struct {
	Store KeyStore
	Now   func() time.Time
	cache keyCache
}

// NewKeys returns Keys over store using the wall clock.
func NewKeys(store KeyStore) *Keys { return &Keys{Store: store, Now: time.Now} }

// List is a project's keys, newest first, as stored: never the keys themselves.
func (ks *Keys) List(ctx context.Context, projectID string) ([]model.APIKey, error) {
	return ks.Store.APIKeysForProject(ctx, projectID)
}

// Revoke ends a project's key at once, in every process (the store moves
// the keys version); an unknown key is model.ErrNotFound.
func (ks *Keys) Revoke(ctx context.Context, projectID, keyID string) error {
	return ks.Store.RevokeAPIKey(ctx, projectID, keyID)
}

// The fields of a key request the projects and the allowlist are refused
// by (model.FieldErrors), which each door names in its own words.
const (
	FieldKeyProjects = "projects"
	FieldKeyAllowIP  = "allow_ip"
)

// MaxKeyProjects and MaxAllowIPs bound a key's projects and allowlist.
const (
	MaxKeyProjects = 100
	MaxAllowIPs    = 100
)

// NewKey is a key to issue.
type NewKey struct {
	Name   string
	Scope  string // read, ingest or write
	Expiry string // a key of Expiries
	// Projects are the projects the key opens; with AllProjects, none: it
	// opens every project CreatedBy is a member of, now and later.
	Projects    []string
	AllProjects bool
	// CreatedBy is the user issuing the key, who must be a member of each
	// project; "" is the operator (the CLI without --owner), who may name
	// any project but cannot ask for all of them.
	CreatedBy string
	// AllowIPs are the networks the key may be used from, CIDRs or single
	// addresses separated by commas or spaces; "": any.
	AllowIPs string
}

// Issue creates a key for one project and returns the key itself, which is
// never stored and so can be shown only now, and its stored record (Create).
func (ks *Keys) Issue(ctx context.Context, projectID, name, scope, expiry string) (string, model.APIKey, error) {
	return ks.Create(ctx, NewKey{Name: name, Scope: scope, Expiry: expiry, Projects: []string{projectID}})
}

// Create issues the key nk asks for and returns the key itself, which is
// never stored and so can be shown only now, and its stored record. A bad
// name is model.ErrKeyName; a bad scope or expiry, model.ErrKeyOptions; bad
// projects or allowlist, model.FieldErrors (FieldKeyProjects, FieldKeyAllowIP).
// A project that does not exist, or that CreatedBy is not a member of, is
// refused in the same words: ids never leak.
func (ks *Keys) Create(ctx context.Context, nk NewKey) (string, model.APIKey, error) {
	name, err := keyName(nk.Name)
	if err != nil {
		return "", model.APIKey{}, err
	}
	if nk.Scope != model.ScopeRead && nk.Scope != model.ScopeIngest && nk.Scope != model.ScopeWrite {
		return "", model.APIKey{}, fmt.Errorf("%w: scope must be %q, %q or %q, not %q", model.ErrKeyOptions, model.ScopeRead, model.ScopeIngest, model.ScopeWrite, nk.Scope)
	}
	ttl, ok := Expiries[nk.Expiry]
	if !ok {
		return "", model.APIKey{}, fmt.Errorf("%w: expiry must be one of 7d, 30d, 60d, 90d or never, not %q", model.ErrKeyOptions, nk.Expiry)
	}
	var problems model.FieldErrors
	projects, err := ks.keyProjects(ctx, nk)
	var fields model.FieldErrors
	if errors.As(err, &fields) {
		problems = append(problems, fields...)
	} else if err != nil {
		return "", model.APIKey{}, err
	}
	allow, err := ParseAllowlist(nk.AllowIPs)
	if errors.As(err, &fields) {
		problems = append(problems, fields...)
	}
	if problems != nil {
		return "", model.APIKey{}, problems
	}
	plain := newKey()
	rec := model.APIKey{Name: name, Hash: HashKey(plain), LastFour: plain[len(plain)-4:], Scope: nk.Scope,
		Projects: projects, AllProjects: nk.AllProjects, CreatedBy: nk.CreatedBy, AllowIPs: allow}
	if ttl > 0 {
		exp := ks.Now().UTC().Add(ttl).Truncate(time.Millisecond)
		rec.ExpiresAt = &exp
	}
	rec, err = ks.Store.CreateAPIKey(ctx, rec)
	if err != nil {
		return "", model.APIKey{}, err
	}
	return plain, rec, nil
}

// keyProjects checks the projects nk asks for and returns them once each,
// in the order given.
func (ks *Keys) keyProjects(ctx context.Context, nk NewKey) ([]string, error) {
	if nk.AllProjects {
		switch {
		case len(nk.Projects) > 0:
			return nil, model.Invalid(FieldKeyProjects, "Choose some projects or all of them, not both.")
		case nk.CreatedBy == "":
			return nil, model.Invalid(FieldKeyProjects, "A key for all projects opens its creator's: name the user it is for.")
		}
		return nil, nil
	}
	var out []string
	for _, p := range nk.Projects {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	switch {
	case len(out) == 0:
		return nil, model.Invalid(FieldKeyProjects, "Choose at least one project for the key.")
	case len(out) > MaxKeyProjects:
		return nil, model.Invalid(FieldKeyProjects, fmt.Sprintf("A key opens at most %d projects listed one by one; choose all projects instead.", MaxKeyProjects))
	}
	for _, p := range out {
		ok, err := ks.mayOpen(ctx, p, nk.CreatedBy)
		if err != nil {
			return nil, err
		}
		switch {
		case !ok && nk.CreatedBy == "":
			return nil, model.Invalid(FieldKeyProjects, fmt.Sprintf("There is no project with the id %q.", p))
		case !ok:
			return nil, model.Invalid(FieldKeyProjects, fmt.Sprintf("No project %q that you administer.", p))
		}
	}
	return out, nil
}

// mayOpen says whether a key issued by user (or the operator, "") may open
// project: it exists, and the user is a member of it.
func (ks *Keys) mayOpen(ctx context.Context, project, user string) (bool, error) {
	if user != "" {
		return ks.Store.IsProjectMember(ctx, project, user)
	}
	_, err := ks.Store.ProjectByID(ctx, project)
	if errors.Is(err, model.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// ParseAllowlist reads an IP allowlist: CIDRs (10.0.0.0/8, 2001:db8::/32)
// or single addresses, separated by commas or spaces; "" is none (any
// address). A CIDR with bits set past its length (10.0.0.1/8) is refused
// rather than guessed at, as is an address with a zone. An IPv4-mapped
// IPv6 network is its IPv4 network, as clients' addresses are compared.
// What is refused is a model.FieldErrors of FieldKeyAllowIP.
func ParseAllowlist(s string) ([]netip.Prefix, error) {
	refuse := func(format string, args ...any) ([]netip.Prefix, error) {
		return nil, model.Invalid(FieldKeyAllowIP, fmt.Sprintf(format, args...))
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	if len(fields) > MaxAllowIPs {
		return refuse("An IP allowlist holds at most %d networks; it has %d.", MaxAllowIPs, len(fields))
	}
	var out []netip.Prefix
	for _, f := range fields {
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil || a.Zone() != "" {
				return refuse("%q is not an IP address or a CIDR such as 10.0.0.0/8 or 2001:db8::/32.", f)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if p.Masked() != p {
			return refuse("%q has bits set past its /%d; write %s for the network, or %s for the one address.", f, p.Bits(), p.Masked(), netip.PrefixFrom(p.Addr(), p.Addr().BitLen()))
		}
		if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Admit is the key a request presents when it may reach projectID from
// the client at client (the address FOLIO_TRUSTED_PROXIES' rule gives):
// Authenticate's errors; model.ErrIPNotAllowed outside the key's allowlist;
// model.ErrProjectNotFound for a project the key does not open, as for
// one that does not exist, so ids never leak.
func (ks *Keys) Admit(ctx context.Context, authorization, projectID string, client netip.Addr) (model.APIKey, error) {
	k, err := ks.Authenticate(ctx, authorization)
	if err != nil {
		return model.APIKey{}, err
	}
	if !k.AllowsFrom(client) {
		return model.APIKey{}, model.ErrIPNotAllowed
	}
	ok, err := ks.Opens(ctx, k, projectID)
	if err != nil {
		return model.APIKey{}, err
	}
	if !ok {
		return model.APIKey{}, model.ErrProjectNotFound
	}
	return k, nil
}

// Opens says whether k opens projectID: a project listed for it or, for a
// key for all projects, one its creator is a member of now.
func (ks *Keys) Opens(ctx context.Context, k model.APIKey, projectID string) (bool, error) {
	if !k.AllProjects {
		return slices.Contains(k.Projects, projectID), nil
	}
	if k.CreatedBy == "" || projectID == "" {
		return false, nil
	}
	return ks.Store.IsProjectMember(ctx, projectID, k.CreatedBy)
}

// Authenticate turns an Authorization header into the key it names. A key
// whose checksum is wrong is refused without touching the database.
func (ks *Keys) Authenticate(ctx context.Context, authorization string) (model.APIKey, error) {
	scheme, token, found := strings.Cut(strings.TrimSpace(authorization), " ")
	if authorization == "" {
		return model.APIKey{}, model.ErrNoKey
	}
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return model.APIKey{}, model.ErrMalformed
	}
	token = strings.TrimSpace(token)
	if !WellFormed(token) {
		return model.APIKey{}, model.ErrMalformed
	}
	hash := sha256.Sum256([]byte(token))
	// A key kept from an earlier request saves the database read, but only
	// while no key has been revoked anywhere since it was read.
	version, keep := ks.Store.KeysVersion()
	k, kept := model.APIKey{}, false
	if keep {
		k, kept = ks.cache.get(hash, version)
	}
	if !kept {
		var err error
		k, err = ks.Store.AuthKeyByHash(ctx, hash[:])
		if errors.Is(err, model.ErrNotFound) {
			return model.APIKey{}, model.ErrUnknownKey
		}
		if err != nil {
			return model.APIKey{}, err
		}
		if keep {
			ks.cache.put(hash, k, version)
		}
	}
	now := ks.Now()
	if subtle.ConstantTimeCompare(k.Hash, hash[:]) != 1 || !k.Active(now) {
		return model.APIKey{}, model.ErrUnknownKey
	}
	// Record use at most once a minute a key, so reads stay reads.
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= touchInterval {
		if err := ks.Store.TouchAPIKey(ctx, k.ID, now); err != nil {
			return model.APIKey{}, err
		}
		ks.cache.touched(hash, now)
	}
	return k, nil
}

// isBase62 tells the bytes of base62 apart, for checking a key per request.
var isBase62 = func() (t [256]bool) {
	for i := 0; i < len(base62); i++ {
		t[base62[i]] = true
	}
	return t
}()

// HashKey is the stored form of a key.
func HashKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

// WellFormed reports whether s has a Folio key's shape and a valid checksum.
func WellFormed(s string) bool {
	if len(s) != keyLen || !strings.HasPrefix(s, KeyPrefix) {
		return false
	}
	body := s[:keyLen-checksumLen]
	for i := len(KeyPrefix); i < len(body); i++ {
		if !isBase62[body[i]] {
			return false
		}
	}
	return subtle.ConstantTimeCompare([]byte(checksum(body)), []byte(s[keyLen-checksumLen:])) == 1
}

func newKey() string {
	var b strings.Builder
	b.WriteString(KeyPrefix)
	limit := big.NewInt(int64(len(base62)))
	for range randomLen {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		b.WriteByte(base62[n.Int64()])
	}
	body := b.String()
	return body + checksum(body)
}

func checksum(body string) string {
	n := crc32.ChecksumIEEE([]byte(body))
	out := make([]byte, checksumLen)
	for i := checksumLen - 1; i >= 0; i-- {
		out[i] = base62[n%62]
		n /= 62
	}
	return string(out)
}
