package exec

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"strings"

	"github.com/google/uuid"
	"github.com/pggraph/pggraph/pgerr"
)

// The functions of the extensions ORMs create (CREATE EXTENSION
// "uuid-ossp", pgcrypto): built into the engine, and callable, as in
// PostgreSQL, once the catalog has the extension (pg_extension lists the
// created ones: planner/ddl/extension.go); before, they do not exist
// (42883).
//
// uuid-ossp: uuid_generate_v1, v1mc, v3, v4, v5, uuid_nil and the
// namespace constants uuid_ns_dns/url/oid/x500 (RFC 4122, as the
// extension's). pgcrypto: digest and hmac (md5, sha1, sha224, sha256,
// sha384, sha512) and gen_random_bytes; gen_random_uuid is core.

func init() {
	def("uuid_generate_v4", sig(TUUID, func(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.S[i] = uuid.NewString()
		}
		return nil
	}))
	def("uuid_generate_v1", sig(TUUID, func(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			u, err := uuid.NewUUID()
			if err != nil {
				return errf(CodeInternalError, "could not generate a version 1 UUID: %v", err)
			}
			out.S[i] = u.String()
		}
		return nil
	}))
	def("uuid_generate_v1mc", sig(TUUID, func(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			u, err := uuid.NewUUID()
			if err != nil {
				return errf(CodeInternalError, "could not generate a version 1 UUID: %v", err)
			}
			// a random node id with the multicast bit set instead of
			// the MAC address (uuid-ossp's v1mc)
			if _, err := rand.Read(u[10:]); err != nil {
				return errf(CodeInternalError, "could not generate a version 1 UUID: %v", err)
			}
			u[10] |= 0x01
			out.S[i] = u.String()
		}
		return nil
	}))
	named := func(gen func(uuid.UUID, []byte) uuid.UUID) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				ns, err := uuid.Parse(a[0].S[i])
				if err != nil {
					return errf(CodeInvalidTextRepr, "invalid input syntax for type uuid: \"%s\"", a[0].S[i])
				}
				out.S[i] = gen(ns, []byte(a[1].S[i])).String()
			}
			return nil
		}
	}
	def("uuid_generate_v3", sig(TUUID, named(uuid.NewMD5), TUUID, TText))
	def("uuid_generate_v5", sig(TUUID, named(uuid.NewSHA1), TUUID, TText))
	constant := func(u uuid.UUID) kernel {
		return func(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				out.S[i] = u.String()
			}
			return nil
		}
	}
	def("uuid_nil", sig(TUUID, constant(uuid.Nil)))
	def("uuid_ns_dns", sig(TUUID, constant(uuid.NameSpaceDNS)))
	def("uuid_ns_url", sig(TUUID, constant(uuid.NameSpaceURL)))
	def("uuid_ns_oid", sig(TUUID, constant(uuid.NameSpaceOID)))
	def("uuid_ns_x500", sig(TUUID, constant(uuid.NameSpaceX500)))

	digest := func(keyed bool) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			alg := 1
			if keyed {
				alg = 2
			}
			for _, i := range sel {
				newHash := hashByName(a[alg].S[i])
				if newHash == nil {
					return errf(CodeInvalidParameterValue, "Cannot use \"%s\": No such hash algorithm", a[alg].S[i])
				}
				var h hash.Hash
				if keyed {
					h = hmac.New(newHash, []byte(a[1].S[i]))
				} else {
					h = newHash()
				}
				h.Write([]byte(a[0].S[i]))
				out.S[i] = string(h.Sum(nil))
			}
			return nil
		}
	}
	def("digest", sig(TBytea, digest(false), TText, TText), sig(TBytea, digest(false), TBytea, TText))
	def("hmac", sig(TBytea, digest(true), TText, TText, TText), sig(TBytea, digest(true), TBytea, TBytea, TText))
	def("gen_random_bytes", sig(TBytea, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			n := a[0].I[i]
			if n < 1 || n > 1024 {
				return errf(pgerr.ExternalRoutineInvocationException, "Length not in range")
			}
			b := make([]byte, n)
			if _, err := rand.Read(b); err != nil {
				return errf(CodeInternalError, "could not generate random bytes: %v", err)
			}
			out.S[i] = string(b)
		}
		return nil
	}, TInt4))
}

// extensionFunctions names the extension each function belongs to.
var extensionFunctions = map[string]string{
	"uuid_generate_v1": "uuid-ossp", "uuid_generate_v1mc": "uuid-ossp", "uuid_generate_v3": "uuid-ossp",
	"uuid_generate_v4": "uuid-ossp", "uuid_generate_v5": "uuid-ossp", "uuid_nil": "uuid-ossp",
	"uuid_ns_dns": "uuid-ossp", "uuid_ns_url": "uuid-ossp", "uuid_ns_oid": "uuid-ossp", "uuid_ns_x500": "uuid-ossp",
	"digest": "pgcrypto", "hmac": "pgcrypto", "gen_random_bytes": "pgcrypto",
}

// hasExtension reports whether the user catalog has created extension name.
func (c *catalogSet) hasExtension(name string) bool {
	ec, ok := c.user.(ExtensionCatalog)
	if !ok || c.user == nil {
		return false
	}
	for _, e := range ec.Extensions() {
		if e.Name == name {
			return true
		}
	}
	return false
}

// hashByName is pgcrypto's digest algorithm by name (case-insensitive).
func hashByName(name string) func() hash.Hash {
	switch strings.ToLower(name) {
	case "md5":
		return md5.New
	case "sha1":
		return sha1.New
	case "sha224":
		return sha256.New224
	case "sha256":
		return sha256.New
	case "sha384":
		return sha512.New384
	case "sha512":
		return sha512.New
	}
	return nil
}

// ExtensionCatalog is an optional extension of Catalog for catalogs that
// record created extensions (pg_extension lists them besides plpgsql).
type ExtensionCatalog interface {
	Extensions() []ExtensionDef
}

// ExtensionDef is one created extension.
type ExtensionDef struct {
	OID     uint32 // 0: created in the open transaction (a stand-in is derived)
	Name    string
	Version string
	Owner   uint32
}

// extensionRows are pg_extension's rows of the created extensions (in
// public, relocatable, as the contrib extensions pggraph has built in).
func (c *catalogSet) extensionRows() [][]any {
	ec, ok := c.user.(ExtensionCatalog)
	if !ok || c.user == nil {
		return nil
	}
	var rows [][]any
	for i, e := range ec.Extensions() {
		oid, owner := e.OID, e.Owner
		if oid == 0 {
			oid = 0x3E00_0000 + uint32(i)
		}
		if owner == 0 {
			owner = oidPostgresRole
		}
		rows = append(rows, []any{oid, e.Name, owner, c.nsOID("public"), true, e.Version, nil, nil})
	}
	return rows
}
