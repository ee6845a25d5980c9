package wire

import (
	"bufio"
	"crypto/hmac"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/xdg-go/stringprep"
)

// Users is the set of login roles read from a users file. Secrets are
// stored the way PostgreSQL stores pg_authid.rolpassword, never in plain
// text:
//
//	SCRAM-SHA-256$<iterations>:<salt base64>$<StoredKey base64>:<ServerKey base64>
//	md5<32 hex digits of md5(password || username)>
//
// File format: one user per line, "name secret", separated by white space;
// blank lines and lines starting with # are ignored. Names cannot contain
// white space. HashSCRAM and HashMD5 produce the secrets.
type Users struct {
	byName map[string]secret
	order  []string          // names in file (or Add) order
	text   map[string]string // the secrets as written
}

// Entries lists the users as (name, secret text) in file order; pgproxy
// seeds the role catalog with them.
func (u *Users) Entries() [][2]string {
	if u == nil {
		return nil
	}
	out := make([][2]string, 0, len(u.order))
	for _, n := range u.order {
		out = append(out, [2]string{n, u.text[n]})
	}
	return out
}

func (u *Users) set(name, text string, s secret) {
	if u.byName == nil {
		u.byName, u.text = map[string]secret{}, map[string]string{}
	}
	if _, ok := u.byName[name]; !ok {
		u.order = append(u.order, name)
	}
	u.byName[name], u.text[name] = s, text
}

type secretKind int

const (
	secretSCRAM secretKind = iota + 1
	secretMD5
)

type secret struct {
	kind      secretKind
	iters     int
	salt      []byte
	storedKey []byte
	serverKey []byte
	md5hex    string // without the "md5" prefix
}

// UsersFileError is a malformed users file line.
type UsersFileError struct {
	Line int
	Msg  string
}

func (e *UsersFileError) Error() string {
	return fmt.Sprintf("users file line %d: %s", e.Line, e.Msg)
}

// LoadUsersFile reads a users file.
func LoadUsersFile(path string) (*Users, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("wire: users file: %w", err)
	}
	defer f.Close()
	return ParseUsers(f)
}

// ParseUsers reads the users file format from r.
func ParseUsers(r io.Reader) (*Users, error) {
	u := &Users{}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 2 {
			return nil, &UsersFileError{line, "want \"name secret\""}
		}
		s, err := parseSecret(fields[1])
		if err != nil {
			return nil, &UsersFileError{line, err.Error()}
		}
		if _, dup := u.byName[fields[0]]; dup {
			return nil, &UsersFileError{line, "duplicate user " + strconv.Quote(fields[0])}
		}
		u.set(fields[0], fields[1], s)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return u, nil
}

// Add sets a user's secret (a HashSCRAM or HashMD5 string).
func (u *Users) Add(name, secretText string) error {
	s, err := parseSecret(secretText)
	if err != nil {
		return err
	}
	u.set(name, secretText, s)
	return nil
}

func (u *Users) lookup(name string) (secret, bool) {
	if u == nil {
		return secret{}, false
	}
	s, ok := u.byName[name]
	return s, ok
}

// IsStoredSecret reports text in a stored secret's form (a SCRAM
// verifier or an md5 hash), which CREATE/ALTER ROLE … PASSWORD keeps as
// given, as PostgreSQL does.
func IsStoredSecret(s string) bool {
	_, err := parseSecret(s)
	return err == nil
}

func parseSecret(s string) (secret, error) {
	if rest, ok := strings.CutPrefix(s, "md5"); ok {
		if len(rest) != 32 {
			return secret{}, fmt.Errorf("md5 secret must have 32 hex digits")
		}
		if _, err := hex.DecodeString(rest); err != nil {
			return secret{}, fmt.Errorf("md5 secret is not hex")
		}
		return secret{kind: secretMD5, md5hex: strings.ToLower(rest)}, nil
	}
	rest, ok := strings.CutPrefix(s, "SCRAM-SHA-256$")
	if !ok {
		return secret{}, fmt.Errorf("unknown secret format (want SCRAM-SHA-256$... or md5...)")
	}
	iterSalt, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return secret{}, fmt.Errorf("malformed SCRAM secret")
	}
	iterText, saltText, ok1 := strings.Cut(iterSalt, ":")
	storedText, serverText, ok2 := strings.Cut(keys, ":")
	if !ok1 || !ok2 {
		return secret{}, fmt.Errorf("malformed SCRAM secret")
	}
	iters, err := strconv.Atoi(iterText)
	if err != nil || iters < 1 {
		return secret{}, fmt.Errorf("bad SCRAM iteration count")
	}
	salt, err1 := base64.StdEncoding.DecodeString(saltText)
	stored, err2 := base64.StdEncoding.DecodeString(storedText)
	server, err3 := base64.StdEncoding.DecodeString(serverText)
	if err1 != nil || err2 != nil || err3 != nil || len(stored) != sha256.Size || len(server) != sha256.Size || len(salt) == 0 {
		return secret{}, fmt.Errorf("bad SCRAM secret encoding")
	}
	return secret{kind: secretSCRAM, iters: iters, salt: salt, storedKey: stored, serverKey: server}, nil
}

// DefaultSCRAMIterations is PostgreSQL's scram_iterations default.
const DefaultSCRAMIterations = 4096

// HashSCRAM returns the SCRAM-SHA-256 secret of password with a random salt.
func HashSCRAM(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	stored, server, err := scramKeys(password, salt, DefaultSCRAMIterations)
	if err != nil {
		return "", err
	}
	b := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", DefaultSCRAMIterations, b(salt), b(stored), b(server)), nil
}

// HashMD5 returns the md5 secret of password for user, as PostgreSQL's
// password_encryption=md5 stores it.
func HashMD5(user, password string) string {
	sum := md5.Sum([]byte(password + user))
	return "md5" + hex.EncodeToString(sum[:])
}

// scramKeys derives StoredKey and ServerKey (RFC 5802) from a password.
func scramKeys(password string, salt []byte, iters int) (stored, server []byte, err error) {
	// PostgreSQL applies SASLprep and uses the raw password when it fails.
	if p, perr := stringprep.SASLprep.Prepare(password); perr == nil {
		password = p
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, iters, sha256.Size)
	if err != nil {
		return nil, nil, err
	}
	clientKey := hmacSHA256(salted, "Client Key")
	sum := sha256.Sum256(clientKey)
	return sum[:], hmacSHA256(salted, "Server Key"), nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// verifyCleartext checks a cleartext password against a stored secret.
func (s secret) verifyCleartext(user, password string) bool {
	switch s.kind {
	case secretSCRAM:
		stored, _, err := scramKeys(password, s.salt, s.iters)
		return err == nil && hmac.Equal(stored, s.storedKey)
	case secretMD5:
		return hmac.Equal([]byte(HashMD5(user, password)[3:]), []byte(s.md5hex))
	}
	return false
}

// verifyMD5 checks a client's md5 challenge response ("md5" + hex).
func (s secret) verifyMD5(response string, salt [4]byte) bool {
	if s.kind != secretMD5 {
		return false
	}
	return hmac.Equal([]byte(response), []byte(md5Response(s.md5hex, salt)))
}

func md5Response(storedHex string, salt [4]byte) string {
	sum := md5.Sum(append([]byte(storedHex), salt[:]...))
	return "md5" + hex.EncodeToString(sum[:])
}
