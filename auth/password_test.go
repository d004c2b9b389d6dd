package auth_test

import (
	"strings"
	"testing"

	"github.com/folio-docs/folio/auth"
)

func TestPasswordHash(t *testing.T) {
	h, err := auth.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$") || strings.Contains(h, "correct horse") {
		t.Fatalf("hash %q is not an argon2id PHC string", h)
	}
	if ok, err := auth.CheckPassword(h, "correct horse battery"); !ok || err != nil {
		t.Errorf("right password: ok=%v err=%v", ok, err)
	}
	if ok, _ := auth.CheckPassword(h, "correct horse batterx"); ok {
		t.Error("wrong password accepted")
	}
	h2, _ := auth.HashPassword("correct horse battery")
	if h == h2 {
		t.Error("two hashes of one password are equal: salt missing")
	}
	if _, err := auth.HashPassword("short"); err == nil {
		t.Error("a 5-character password was accepted")
	}
}

// A stored hash is read from the database, so its key length is checked
// before argon2 is asked for that many bytes.
func TestCheckPasswordRefusesADamagedHash(t *testing.T) {
	h, err := auth.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(h, "$")
	for _, tc := range []struct{ name, key, want string }{
		{"empty key", "", "a stored hash of 0 bytes"},
		{"key too long", strings.Repeat("A", 1400), "a stored hash of 1050 bytes"},
	} {
		parts[5] = tc.key
		ok, err := auth.CheckPassword(strings.Join(parts, "$"), "correct horse battery")
		if ok || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ok=%v err=%v, want an error with %q", tc.name, ok, err, tc.want)
		}
	}
}
