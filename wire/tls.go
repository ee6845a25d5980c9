package wire

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"hash"
	"math/big"
	"net"
	"time"
)

// alpnProtocol is the ALPN name PostgreSQL clients offer (required for
// direct TLS).
const alpnProtocol = "postgresql"

func buildTLSConfig(c Config) (*tls.Config, error) {
	tc, err := baseTLSConfig(c)
	if tc == nil || err != nil {
		return tc, err
	}
	tc = tc.Clone()
	if len(tc.NextProtos) == 0 {
		tc.NextProtos = []string{alpnProtocol}
	}
	return tc, nil
}

func baseTLSConfig(c Config) (*tls.Config, error) {
	switch {
	case c.TLSConfig != nil:
		return c.TLSConfig, nil
	case c.TLSCertFile != "" || c.TLSKeyFile != "":
		cert, err := tls.LoadX509KeyPair(c.TLSCertFile, c.TLSKeyFile)
		if err != nil {
			return nil, fmt.Errorf("wire: TLS certificate: %w", err)
		}
		return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
	case c.TLSSelfSigned:
		cert, err := SelfSignedCertificate("localhost")
		if err != nil {
			return nil, err
		}
		return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
	}
	return nil, nil
}

// serverEndpointBinding is the tls-server-end-point channel binding data
// (RFC 5929) of the configured certificate, or nil when it cannot be known
// in advance (several certificates or GetCertificate).
func serverEndpointBinding(tc *tls.Config) []byte {
	if tc == nil || len(tc.Certificates) != 1 || tc.GetCertificate != nil || len(tc.Certificates[0].Certificate) == 0 {
		return nil
	}
	cert, err := x509.ParseCertificate(tc.Certificates[0].Certificate[0])
	if err != nil {
		return nil
	}
	var h hash.Hash
	switch cert.SignatureAlgorithm {
	case x509.SHA384WithRSA, x509.SHA384WithRSAPSS, x509.ECDSAWithSHA384:
		h = sha512.New384()
	case x509.SHA512WithRSA, x509.SHA512WithRSAPSS, x509.ECDSAWithSHA512:
		h = sha512.New()
	case x509.PureEd25519:
		return nil // no hash defined for tls-server-end-point
	default: // MD5/SHA-1/SHA-256 based signatures all use SHA-256
		h = sha256.New()
	}
	h.Write(cert.Raw)
	return h.Sum(nil)
}

// SelfSignedCertificate generates an ECDSA P-256 certificate for host (and
// 127.0.0.1, ::1), valid for one year. Clients must not verify it
// (sslmode=require); it only encrypts.
func SelfSignedCertificate(host string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host, Organization: []string{"pggraph self-signed"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{host},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
