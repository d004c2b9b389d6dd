package github

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/bradleyfalzon/ghinstallation/v2"
)

// AppToken hands out a GitHub App's installation token through
// ghinstallation, the maintained library for it: it signs the app's JWT,
// exchanges it for a token of the installation, and reuses that token
// until a minute before it expires (they last an hour).
type AppToken struct {
	appID int64
	tr    *ghinstallation.Transport
}

// NewAppToken returns the token source of an app's installation, using the
// API at apiURL (https://api.github.com/ or an Enterprise /api/v3/ URL).
func NewAppToken(appID, installationID int64, privateKeyPEM []byte, apiURL string, httpClient *http.Client) (*AppToken, error) {
	if _, err := ParsePrivateKey(privateKeyPEM); err != nil {
		return nil, err
	}
	u, err := parseAPIURL(apiURL)
	if err != nil {
		return nil, err
	}
	base := http.DefaultTransport
	if httpClient != nil && httpClient.Transport != nil {
		base = httpClient.Transport
	}
	tr, err := ghinstallation.New(base, appID, installationID, privateKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("github: unable to use the app's private key: %w", err)
	}
	tr.BaseURL = strings.TrimSuffix(u.String(), "/")
	return &AppToken{appID: appID, tr: tr}, nil
}

// ParsePrivateKey reads an app's private key as GitHub hands it out (PKCS#1
// "RSA PRIVATE KEY"), or as PKCS#8, so configuration is checked at start-up.
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
// GitHub refusing it is a StatusError carrying GitHub's message, so a bad
// key or app id is told apart from an outage, as every other call's is.
func (a *AppToken) Token(ctx context.Context) (string, error) {
	tok, err := a.tr.Token(ctx)
	if err == nil {
		return tok, nil
	}
	var he *ghinstallation.HTTPError
	if errors.As(err, &he) && he.Response != nil {
		defer he.Response.Body.Close()
		var body struct{ Message string }
		_ = json.NewDecoder(io.LimitReader(he.Response.Body, 64<<10)).Decode(&body) // a body that is not JSON leaves Message empty; the status still says what failed
		err = &StatusError{Status: he.Response.StatusCode, Message: body.Message}
	}
	return "", fmt.Errorf("github: unable to get an installation token for app %d: %w", a.appID, err)
}
