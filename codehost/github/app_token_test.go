package github

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeAppAPI is GitHub's installation-token endpoint: it checks the app's
// JWT against the public key and hands out numbered tokens.
func fakeAppAPI(t *testing.T, pub *rsa.PublicKey, appID, installationID int64, lifetime time.Duration) (*httptest.Server, *atomic.Int64) {
	var minted atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != fmt.Sprintf("/app/installations/%d/access_tokens", installationID) {
			w.WriteHeader(404)
			fmt.Fprint(w, `{"message":"Not Found"}`)
			return
		}
		if err := checkJWT(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), pub, appID); err != nil {
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"message":%q}`, "A JSON web token could not be decoded: "+err.Error())
			return
		}
		n := minted.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		json.NewEncoder(w).Encode(map[string]any{"token": fmt.Sprintf("ghs_installation%d", n), "expires_at": time.Now().Add(lifetime).UTC().Format(time.RFC3339)})
	}))
	t.Cleanup(srv.Close)
	return srv, &minted
}

func checkJWT(token string, pub *rsa.PublicKey, appID int64) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return fmt.Errorf("not a JWT")
	}
	enc := base64.RawURLEncoding
	sig, err := enc.DecodeString(parts[2])
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig); err != nil {
		return fmt.Errorf("bad signature")
	}
	var header struct{ Alg string }
	var claims struct {
		Iat, Exp int64
		Iss      string
	}
	h, _ := enc.DecodeString(parts[0])
	c, _ := enc.DecodeString(parts[1])
	if json.Unmarshal(h, &header) != nil || json.Unmarshal(c, &claims) != nil || header.Alg != "RS256" {
		return fmt.Errorf("bad header or claims")
	}
	now := time.Now().Unix()
	if claims.Iss != fmt.Sprint(appID) || claims.Iat > now || claims.Exp <= now || claims.Exp-claims.Iat > 600 {
		return fmt.Errorf("claims %+v not valid now", claims)
	}
	return nil
}

func newAppKey(t *testing.T) (*rsa.PrivateKey, []byte) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return key, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
}

// The second Token() reuses a token that has an hour left, and replaces
// one GitHub handed out with under a minute left.
func TestAppTokenMintsReusesAndRenews(t *testing.T) {
	for _, c := range []struct {
		lifetime time.Duration
		second   string
		mints    int64
	}{{time.Hour, "ghs_installation1", 1}, {30 * time.Second, "ghs_installation2", 2}} {
		key, keyPEM := newAppKey(t)
		api, minted := fakeAppAPI(t, &key.PublicKey, 42, 7, c.lifetime)
		src, err := NewAppToken(42, 7, keyPEM, api.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if first, err := src.Token(ctx); err != nil || first != "ghs_installation1" {
			t.Fatalf("Token() = %q, %v", first, err)
		}
		if second, _ := src.Token(ctx); second != c.second || minted.Load() != c.mints {
			t.Errorf("a token with %s to live: second Token() = %q after %d mints, want %q after %d", c.lifetime, second, minted.Load(), c.second, c.mints)
		}
	}
}

func TestAppTokenRefusedByGitHub(t *testing.T) {
	key, _ := newAppKey(t)
	_, otherPEM := newAppKey(t)
	api, _ := fakeAppAPI(t, &key.PublicKey, 42, 7, time.Hour)
	src, err := NewAppToken(42, 7, otherPEM, api.URL, nil) // signed with the wrong key
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Token(context.Background())
	var se *StatusError
	if err == nil || !strings.Contains(err.Error(), "could not be decoded") || !errors.As(err, &se) || !se.Permanent() {
		t.Fatalf("err = %v; want GitHub's refusal, permanent", err)
	}
}

func TestParsePrivateKey(t *testing.T) {
	key, pkcs1 := newAppKey(t)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pkcs8 := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	for name, in := range map[string][]byte{"pkcs1": pkcs1, "pkcs8": pkcs8} {
		if got, err := ParsePrivateKey(in); err != nil || !got.Equal(key) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ParsePrivateKey([]byte("not a key")); err == nil {
		t.Error("garbage parsed as a key")
	}
}
