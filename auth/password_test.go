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
