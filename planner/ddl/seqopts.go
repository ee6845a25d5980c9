package ddl

import (
	"math"
	"strconv"

	"github.com/pggraph/pggraph/exec"
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// typeRange is the value range of a sequence data type.
func typeRange(oid uint32) (int64, int64) {
	switch oid {
	case exec.OIDInt2:
		return math.MinInt16, math.MaxInt16
	case exec.OIDInt4:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// seqOptionSet records which options a statement named explicitly, so
// ALTER SEQUENCE only changes those and derived bounds follow PostgreSQL.
type seqOptionSet struct {
	typ, inc, min, max, start, cache, cycle bool
	noMin, noMax                            bool
	restart                                 *int64 // RESTART value; restartAtStart when RESTART alone
	restartAtStart                          bool
	ownedBy                                 []string
	name                                    []string // identity: SEQUENCE NAME
}

// parseSeqOptions applies CREATE/ALTER SEQUENCE options to base (the
// current options for ALTER, zero for CREATE) and validates the result.
// forIdentity changes the messages as PostgreSQL does.
func parseSeqOptions(opts []*q.Node, base SeqOptions, create, forIdentity bool, seqName string) (SeqOptions, seqOptionSet, error) {
	var set seqOptionSet
	o := base
	seen := map[string]bool{}
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			return o, set, errorf(CodeSyntaxError, "invalid sequence option")
		}
		if seen[d.Defname] {
			return o, set, errorf(CodeSyntaxError, "conflicting or redundant options")
		}
		seen[d.Defname] = true
		var err error
		switch d.Defname {
		case "as":
			tn := d.Arg.GetTypeName()
			rt, terr := resolveType(tn)
			if terr != nil {
				return o, set, terr
			}
			if rt.Serial || (rt.OID != exec.OIDInt2 && rt.OID != exec.OIDInt4 && rt.OID != exec.OIDInt8) {
				if forIdentity {
					return o, set, errorf(CodeInvalidParameterValue, "identity column type must be smallint, integer, or bigint")
				}
				return o, set, errorf(CodeInvalidParameterValue, "sequence type must be smallint, integer, or bigint")
			}
			o.Type = rt.PGType
			set.typ = true
		case "increment":
			o.Increment, err = defInt(d)
			set.inc = true
		case "minvalue":
			if d.Arg == nil {
				set.noMin = true
			} else {
				o.Min, err = defInt(d)
				set.min = true
			}
		case "maxvalue":
			if d.Arg == nil {
				set.noMax = true
			} else {
				o.Max, err = defInt(d)
				set.max = true
			}
		case "start":
			o.Start, err = defInt(d)
			set.start = true
		case "restart":
			if create {
				return o, set, errorf(CodeSyntaxError, "RESTART cannot be used in CREATE SEQUENCE")
			}
			if d.Arg == nil {
				set.restartAtStart = true
			} else {
				var v int64
				v, err = defInt(d)
				set.restart = &v
			}
		case "cache":
			o.Cache, err = defInt(d)
			set.cache = true
		case "cycle":
			b := d.Arg.GetBoolean()
			o.Cycle = b != nil && b.Boolval
			if b == nil {
				if i := d.Arg.GetInteger(); i != nil {
					o.Cycle = i.Ival != 0
				}
			}
			set.cycle = true
		case "owned_by":
			for _, p := range d.Arg.GetList().GetItems() {
				set.ownedBy = append(set.ownedBy, p.GetString_().GetSval())
			}
		case "sequence_name":
			for _, p := range d.Arg.GetList().GetItems() {
				set.name = append(set.name, p.GetString_().GetSval())
			}
		case "logged", "unlogged":
		default:
			return o, set, errorf(CodeSyntaxError, "option \"%s\" not recognized", d.Defname)
		}
		if err != nil {
			return o, set, err
		}
	}
	if o.Type.OID == 0 {
		o.Type = PGType{OID: exec.OIDInt8, Mod: -1}
	}
	if !set.inc && o.Increment == 0 {
		o.Increment = 1
	}
	if o.Increment == 0 {
		return o, set, errorf(CodeInvalidParameterValue, "INCREMENT must not be zero")
	}
	lo, hi := typeRange(o.Type.OID)
	// Bounds: default per direction, or re-derived when the type changes
	// and the old bound was the old type's default.
	if set.noMax || (!set.max && (create || (set.typ && isDefaultMax(base)))) {
		if o.Increment > 0 {
			o.Max = hi
		} else {
			o.Max = -1
		}
	}
	if set.noMin || (!set.min && (create || (set.typ && isDefaultMin(base)))) {
		if o.Increment > 0 {
			o.Min = 1
		} else {
			o.Min = lo
		}
	}
	tname := o.Type.String()
	if o.Max > hi || o.Max < lo {
		return o, set, errorf(CodeInvalidParameterValue, "MAXVALUE (%d) is out of range for sequence data type %s", o.Max, tname)
	}
	if o.Min > hi || o.Min < lo {
		return o, set, errorf(CodeInvalidParameterValue, "MINVALUE (%d) is out of range for sequence data type %s", o.Min, tname)
	}
	if o.Min >= o.Max {
		return o, set, errorf(CodeInvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", o.Min, o.Max)
	}
	if !set.start && create {
		if o.Increment > 0 {
			o.Start = o.Min
		} else {
			o.Start = o.Max
		}
	}
	if o.Start < o.Min {
		return o, set, errorf(CodeInvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", o.Start, o.Min)
	}
	if o.Start > o.Max {
		return o, set, errorf(CodeInvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", o.Start, o.Max)
	}
	if set.restart != nil {
		if *set.restart < o.Min {
			return o, set, errorf(CodeInvalidParameterValue, "RESTART value (%d) cannot be less than MINVALUE (%d)", *set.restart, o.Min)
		}
		if *set.restart > o.Max {
			return o, set, errorf(CodeInvalidParameterValue, "RESTART value (%d) cannot be greater than MAXVALUE (%d)", *set.restart, o.Max)
		}
	}
	if !set.cache && o.Cache == 0 {
		o.Cache = 1
	}
	if o.Cache <= 0 {
		return o, set, errorf(CodeInvalidParameterValue, "CACHE (%d) must be greater than zero", o.Cache)
	}
	return o, set, nil
}

func isDefaultMax(o SeqOptions) bool {
	_, hi := typeRange(o.Type.OID)
	return (o.Increment > 0 && o.Max == hi) || (o.Increment < 0 && o.Max == -1)
}

func isDefaultMin(o SeqOptions) bool {
	lo, _ := typeRange(o.Type.OID)
	return (o.Increment > 0 && o.Min == 1) || (o.Increment < 0 && o.Min == lo)
}

// defInt reads a DefElem's integer argument (big values arrive as Float).
func defInt(d *q.DefElem) (int64, error) {
	if d.Arg == nil {
		return 0, errorf(CodeSyntaxError, "%s requires a numeric value", d.Defname)
	}
	if i := d.Arg.GetInteger(); i != nil {
		return int64(i.Ival), nil
	}
	if f := d.Arg.GetFloat(); f != nil {
		v, err := strconv.ParseInt(f.Fval, 10, 64)
		if err != nil {
			return 0, errorf(CodeInvalidParameterValue, "%s value %s is out of range for type bigint", d.Defname, f.Fval)
		}
		return v, nil
	}
	return 0, errorf(CodeSyntaxError, "%s requires a numeric value", d.Defname)
}

// defaultSeqOptions is a fresh sequence of type t (serial/identity).
func defaultSeqOptions(t PGType) SeqOptions {
	_, hi := typeRange(t.OID)
	return SeqOptions{Type: t, Start: 1, Increment: 1, Min: 1, Max: hi, Cache: 1}
}
