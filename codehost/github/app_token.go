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
	"net/url"
	"sync"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// renewBefore is how long before expiry an installation token is replaced,
// so a run never starts with a token about to lapse (they last an hour).
const renewBefore = 10 * time.Minute

// AppToken hands out a GitHub App's installation token: it signs a JWT
// with the app's private key, exchanges it for a token of the installation,
// and reuses that token until shortly before it expires.
type AppToken struct {
	appID          int64
	installationID int64
	key            *rsa.PrivateKey
	apiURL         *url.URL
	httpClient     *http.Client
	now            func() time.Time

	mu      sync.Mutex
	token   string
	expires time.Time
}

// NewAppToken returns the token source of an app's installation, using the
// API at apiURL (https://api.github.com/ or an Enterprise /api/v3/ URL).
func NewAppToken(appID, installationID int64, privateKeyPEM []byte, apiURL string, httpClient *http.Client) (*AppToken, error) {
	key, err := ParsePrivateKey(privateKeyPEM)
	if err != nil {
		return nil, err
	}
	u, err := parseAPIURL(apiURL)
	if err != nil {
		return nil, err
	}
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	return &AppToken{appID: appID, installationID: installationID, key: key, apiURL: u, httpClient: httpClient, now: time.Now}, nil
}

// ParsePrivateKey reads an app's private key as GitHub hands it out (PKCS#1
// "RSA PRIVATE KEY"), or as PKCS#8.
func ParsePrivateKey(pemBytes []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("github: the app's private key is not PEM")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("github: unable to parse the app's private key: %w", err)
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, errors.New("github: the app's private key is not an RSA key")
	}
	return rk, nil
}

// Token returns a valid installation token, minting a new one when needed.
func (a *AppToken) Token(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if a.token != "" && now.Add(renewBefore).Before(a.expires) {
		return a.token, nil
	}
	jwt, err := a.jwt(now)
	if err != nil {
		return "", err
	}
	c := gh.NewClient(a.httpClient).WithAuthToken(jwt)
	c.BaseURL = a.apiURL
	tok, _, err := c.Apps.CreateInstallationToken(ctx, a.installationID, nil)
	if err != nil {
		return "", fmt.Errorf("github: unable to get an installation token for app %d: %w", a.appID, apiError(err))
	}
	a.token, a.expires = tok.GetToken(), tok.GetExpiresAt().Time
	return a.token, nil
}

// jwt is the app's RS256-signed assertion, valid for nine minutes and
// backdated a minute for clock drift, as GitHub recommends.
func (a *AppToken) jwt(now time.Time) (string, error) {
	enc := base64.RawURLEncoding
	header := enc.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`))
	claims, _ := json.Marshal(map[string]any{
		"iat": now.Add(-time.Minute).Unix(),
		"exp": now.Add(9 * time.Minute).Unix(),
		"iss": fmt.Sprint(a.appID),
	})
	signing := header + "." + enc.EncodeToString(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, a.key, crypto.SHA256, sum[:])
	if err != nil {
		return "", fmt.Errorf("github: unable to sign the app's JWT: %w", err)
	}
	return signing + "." + enc.EncodeToString(sig), nil
}
