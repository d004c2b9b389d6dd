package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/folio-docs/folio/model"
	"golang.org/x/crypto/argon2"
)

// argon2id parameters, OWASP's recommended minimum.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// HashPassword returns an argon2id hash of password in PHC string format.
func HashPassword(password string) (string, error) {
	if len(password) < model.MinPasswordLen {
		return "", model.ErrPasswordTooShort
	}
	salt := make([]byte, 16)
	rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemory, argonTime, argonThreads, enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// maxHashLen bounds the key length a stored hash asks argon2 for.
const maxHashLen = 1024

// CheckPassword reports whether password matches a hash from HashPassword.
func CheckPassword(hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("auth: unrecognised password hash")
	}
	var version int
	var mem, t uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errors.New("auth: unsupported argon2 version")
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &t, &threads); err != nil {
		return false, fmt.Errorf("auth: bad argon2 parameters: %w", err)
	}
	enc := base64.RawStdEncoding
	salt, err := enc.DecodeString(parts[4])
	if err != nil {
		return false, fmt.Errorf("auth: bad salt: %w", err)
	}
	want, err := enc.DecodeString(parts[5])
	if err != nil {
		return false, fmt.Errorf("auth: bad hash: %w", err)
	}
	if len(want) == 0 || len(want) > maxHashLen {
		return false, fmt.Errorf("auth: a stored hash of %d bytes (want 1 to %d)", len(want), maxHashLen)
	}
	got := argon2.IDKey([]byte(password), salt, t, mem, threads, uint32(len(want))) // #nosec G115 -- at most maxHashLen, checked above
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
