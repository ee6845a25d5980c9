package wire

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ServerVersion is the PostgreSQL version wire reports. psql and drivers pick
// their catalog queries by it, so it is pinned to one 15.x release.
const (
	ServerVersion    = "15.18"
	ServerVersionNum = "150018"
)

// settingDef describes one known (non-custom) setting.
type settingDef struct {
	name     string // display spelling (ParameterStatus, SHOW ALL)
	def      string
	report   bool // sent as ParameterStatus at startup and on change
	readOnly bool // SET fails with 55P02
	// noResetAll keeps the setting through RESET ALL, as PostgreSQL's
	// GUC_NO_RESET_ALL does for role and the transaction's own
	// characteristics (DISCARD ALL still resets them: discardAll).
	noResetAll bool
	normalize  func(string) (string, *Error)
	desc       string
}

// settingDefs are the PostgreSQL settings clients send or ask for. Keys are
// lower-case. Settings not listed and not dotted are unknown (42704).
var settingDefs = map[string]*settingDef{}

func init() {
	add := func(d settingDef) { c := d; settingDefs[strings.ToLower(d.name)] = &c }
	add(settingDef{name: "server_version", def: ServerVersion, report: true, readOnly: true, desc: "Shows the server version."})
	add(settingDef{name: "server_version_num", def: ServerVersionNum, readOnly: true, desc: "Shows the server version as an integer."})
	add(settingDef{name: "server_encoding", def: "UTF8", report: true, readOnly: true, desc: "Shows the server (database) character set encoding."})
	add(settingDef{name: "client_encoding", def: "UTF8", report: true, normalize: normEncoding, desc: "Sets the client's character set encoding."})
	add(settingDef{name: "DateStyle", def: "ISO, MDY", report: true, normalize: normDateStyle, desc: "Sets the display format for date and time values."})
	add(settingDef{name: "IntervalStyle", def: "postgres", report: true, normalize: normIntervalStyle, desc: "Sets the display format for interval values."})
	add(settingDef{name: "TimeZone", def: "UTC", report: true, normalize: normTimeZone, desc: "Sets the time zone for displaying and interpreting time stamps."})
	add(settingDef{name: "integer_datetimes", def: "on", report: true, readOnly: true, desc: "Shows whether datetimes are integer based."})
	add(settingDef{name: "standard_conforming_strings", def: "on", report: true, normalize: normOnlyOn, desc: "Causes '...' strings to treat backslashes literally."})
	add(settingDef{name: "application_name", def: "", report: true, normalize: normAppName, desc: "Sets the application name to be reported in statistics and logs."})
	add(settingDef{name: "is_superuser", def: "on", report: true, readOnly: true, desc: "Shows whether the current user is a superuser."})
	add(settingDef{name: "session_authorization", def: "", report: true, readOnly: true, desc: "Sets the session user name."})
	add(settingDef{name: "default_transaction_read_only", def: "off", report: true, normalize: normBool, desc: "Sets the default read-only status of new transactions."})
	add(settingDef{name: "in_hot_standby", def: "off", report: true, readOnly: true, desc: "Shows whether hot standby is currently active."})
	add(settingDef{name: "extra_float_digits", def: "1", normalize: normIntRange(-15, 3), desc: "Sets the number of digits displayed for floating-point values."})
	add(settingDef{name: "search_path", def: `"$user", public`, normalize: normAny, desc: "Sets the schema search order for names that are not schema-qualified."})
	add(settingDef{name: "statement_timeout", def: "0", normalize: normDuration, desc: "Sets the maximum allowed duration of any statement."})
	add(settingDef{name: "log_min_duration_statement", def: "-1", normalize: normMinDuration, desc: "Sets the minimum execution time above which all statements will be logged."})
	add(settingDef{name: "log_connections", def: "off", readOnly: true, desc: "Logs each successful connection."})
	add(settingDef{name: "log_disconnections", def: "off", readOnly: true, desc: "Logs end of a session, including duration."})
	add(settingDef{name: "lock_timeout", def: "0", normalize: normDuration, desc: "Sets the maximum allowed duration of any wait for a lock."})
	add(settingDef{name: "idle_in_transaction_session_timeout", def: "0", normalize: normDuration, desc: "Sets the maximum allowed idle time between queries, when in a transaction."})
	add(settingDef{name: "idle_session_timeout", def: "0", normalize: normDuration, desc: "Sets the maximum allowed idle time between queries, when not in a transaction."})
	add(settingDef{name: "client_min_messages", def: "notice", normalize: normEnum("debug5", "debug4", "debug3", "debug2", "debug1", "debug", "log", "notice", "warning", "error"), desc: "Sets the message levels that are sent to the client."})
	add(settingDef{name: "transaction_isolation", noResetAll: true, def: "read committed", normalize: normIsolation, desc: "Sets the current transaction's isolation level."})
	add(settingDef{name: "default_transaction_isolation", def: "read committed", normalize: normIsolation, desc: "Sets the transaction isolation level of each new transaction."})
	add(settingDef{name: "transaction_read_only", noResetAll: true, def: "off", normalize: normBool, desc: "Sets the current transaction's read-only status."})
	add(settingDef{name: "transaction_deferrable", noResetAll: true, def: "off", normalize: normBool, desc: "Whether to defer a read-only serializable transaction."})
	add(settingDef{name: "default_transaction_deferrable", def: "off", normalize: normBool, desc: "Sets the default deferrable status of new transactions."})
	add(settingDef{name: "bytea_output", def: "hex", normalize: normEnum("hex", "escape"), desc: "Sets the output format for bytea."})
	add(settingDef{name: "max_identifier_length", def: "63", readOnly: true, desc: "Shows the maximum identifier length."})
	add(settingDef{name: "max_index_keys", def: "32", readOnly: true, desc: "Shows the maximum number of index keys."})
	add(settingDef{name: "block_size", def: "8192", readOnly: true, desc: "Shows the size of a disk block."})
	// pg_recvlogical (and pg_basebackup) read it on a replication connection
	add(settingDef{name: "data_directory_mode", def: "0700", readOnly: true, desc: "Shows the mode of the data directory."})
	add(settingDef{name: "lc_collate", def: "C.UTF-8", readOnly: true, desc: "Shows the collation order locale."})
	add(settingDef{name: "lc_ctype", def: "C.UTF-8", readOnly: true, desc: "Shows the character classification and case conversion locale."})
	for _, n := range []string{"lc_messages", "lc_monetary", "lc_numeric", "lc_time"} {
		add(settingDef{name: n, def: "C.UTF-8", normalize: normAny, desc: "Locale setting."})
	}
	for _, n := range []string{"check_function_bodies", "row_security", "synchronous_commit", "jit", "enable_seqscan", "enable_indexscan", "enable_bitmapscan", "enable_mergejoin", "escape_string_warning", "array_nulls", "quote_all_identifiers", "synchronize_seqscans"} {
		add(settingDef{name: n, def: "on", normalize: normBool, desc: "Accepted for compatibility."})
	}
	// join methods the executor has (exec/ops_indexjoin.go): off disables
	// the lookup (index nested-loop) join or the hash join where the
	// other one can answer, as PostgreSQL's planner settings do
	add(settingDef{name: "enable_nestloop", def: "on", normalize: normBool, desc: "Enables the planner's use of nested-loop join plans."})
	add(settingDef{name: "enable_hashjoin", def: "on", normalize: normBool, desc: "Enables the planner's use of hash join plans."})
	add(settingDef{name: "xmloption", def: "content", normalize: normEnum("content", "document"), desc: "Sets whether XML data is to be considered as documents or content fragments."})
	add(settingDef{name: "default_tablespace", def: "", normalize: normAny, desc: "Accepted for compatibility."})
	add(settingDef{name: "default_table_access_method", def: "heap", normalize: normAny, desc: "Accepted for compatibility."})
	add(settingDef{name: "work_mem", def: "64MB", normalize: normWorkMem, desc: "Sets the maximum memory to be used for query workspaces."})
	add(settingDef{name: "maintenance_work_mem", def: "64MB", normalize: normAny, desc: "Accepted for compatibility."})
	add(settingDef{name: "timezone_abbreviations", def: "Default", normalize: normAny, desc: "Accepted for compatibility."})
	add(settingDef{name: "backslash_quote", def: "safe_encoding", normalize: normAny, desc: "Accepted for compatibility."})
	add(settingDef{name: "role", noResetAll: true, def: "none", normalize: normAny, desc: "Sets the current role."})
	// The graph settings (docs/architecture.md, "SQL surface").
	add(settingDef{name: "graph.branch", def: "main", normalize: normAny, desc: "The graph branch this session reads and writes."})
	add(settingDef{name: "graph.progress_interval", def: "0", normalize: normDuration, desc: "Sends a progress NOTICE this often during long COPY operations (0 = never)."})
	add(settingDef{name: "graph.as_of", def: "", normalize: normAny, desc: "A commit id, manifest version or timestamp: read-only snapshot."})
	for k, d := range settingDefs {
		if d.report {
			reportedSettings = append(reportedSettings, [2]string{k, d.name})
		}
	}
	sort.Slice(reportedSettings, func(i, j int) bool { return reportedSettings[i][1] < reportedSettings[j][1] })
}

// Settings is one session's configuration parameters: PostgreSQL's GUCs as
// far as clients use them, plus custom dotted names. Values are strings in
// their normalized display form. Changes inside a transaction are undone by
// ROLLBACK; SET LOCAL values end with the transaction. A Settings belongs
// to its connection's goroutine: use it only from inside Session methods
// (copy what a background task needs).
type Settings struct {
	values   map[string]string // session values; key = lower-case name
	local    map[string]string // SET LOCAL overlay for the current transaction
	snapshot map[string]string // session values at transaction start (nil outside)
	defaults map[string]string // per-session defaults (startup parameters)
	// serverSet marks the defaults the server's configuration set (its
	// flags), not the client's startup packet (pg_settings.source)
	serverSet map[string]bool
	custom    map[string]string // display spelling of custom names
	saves     []settingsSave    // savepoints of the current transaction, oldest first
	// inTx: a transaction is open; its start values are copied into
	// snapshot on its first change only, so a statement that sets
	// nothing (every autocommit lookup) copies nothing.
	inTx bool
	// gen counts changes of what Get can return, so the connection
	// re-reads the reported settings only after one (ParameterStatus).
	gen uint64
	// bindGen counts the changes that can matter to a bound plan: all
	// but those of the session's own bookkeeping (unboundSettings)
	bindGen uint64
}

// unboundSettings change with every commit or describe the session, and
// no statement's binding depends on them.
var unboundSettings = map[string]bool{"graph.last_commit": true, "graph.commit_message": true, "application_name": true}

// touch is called before a change of values, local or defaults.
func (s *Settings) touch() {
	s.gen++
	s.bindGen++
	if s.inTx && s.snapshot == nil {
		s.snapshot = copyMap(s.values)
	}
}

// settingsSave is the state at a SAVEPOINT, restored by ROLLBACK TO.
type settingsSave struct {
	name          string
	values, local map[string]string
}

func copyMap(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (s *Settings) savepoint(name string) {
	s.saves = append(s.saves, settingsSave{name: name, values: copyMap(s.values), local: copyMap(s.local)})
}

func (s *Settings) findSave(name string) int {
	for i := len(s.saves) - 1; i >= 0; i-- {
		if s.saves[i].name == name {
			return i
		}
	}
	return -1
}

// rollbackTo restores the state of savepoint name, which stays defined.
func (s *Settings) rollbackTo(name string) {
	if i := s.findSave(name); i >= 0 {
		s.touch()
		s.values, s.local = copyMap(s.saves[i].values), copyMap(s.saves[i].local)
		s.saves = s.saves[:i+1]
	}
}

// release forgets savepoint name and every later one.
func (s *Settings) release(name string) {
	if i := s.findSave(name); i >= 0 {
		s.saves = s.saves[:i]
	}
}

// NewSettings returns settings at their PostgreSQL defaults.
func NewSettings() *Settings {
	return &Settings{values: map[string]string{}, defaults: map[string]string{}, custom: map[string]string{}}
}

// BindGeneration counts the changes of settings a bound plan may depend
// on (search_path, TimeZone, the branch, ...; not graph.last_commit): a
// caller that bound a statement under them can tell whether it still
// holds.
func (s *Settings) BindGeneration() uint64 { return s.bindGen }

// Get returns the current value of name (case-insensitive) and whether the
// setting exists (known, or a custom name that has been set).
func (s *Settings) Get(name string) (string, bool) {
	key := strings.ToLower(name)
	if v, ok := s.local[key]; ok {
		return v, true
	}
	if v, ok := s.values[key]; ok {
		return v, true
	}
	if v, ok := s.defaults[key]; ok {
		return v, true
	}
	if d, ok := settingDefs[key]; ok {
		return d.def, true
	}
	return "", false
}

// Set changes a setting the way SET (or SET LOCAL) does, for the SQL
// layer's functions such as set_config in arbitrary queries or a branch
// checkout: the name is checked (42704 for unknown non-dotted names, 55P02
// for read-only ones) and the value normalized; it returns the new value.
// Call it only from inside a Session method; a change of a reported
// setting reaches the client as ParameterStatus.
func (s *Settings) Set(name, value string, local bool) (string, error) {
	cur, _ := s.Get(name)
	key, v, err := resolveSettingFrom(name, value, cur)
	if err != nil {
		return "", err
	}
	s.set(key, v, local, name)
	return v, nil
}

// Duration reads a time setting (statement_timeout, ...) in milliseconds.
func (s *Settings) Duration(name string) time.Duration {
	v, _ := s.Get(name)
	ms, err := parseDurationMS(v)
	if err != nil {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// resolveSetting validates a change of name to value and returns the
// canonical key and normalized value.
func resolveSetting(name, value string) (string, string, *Error) {
	return resolveSettingFrom(name, value, "")
}

// resolveSettingFrom is resolveSetting for a session whose current value
// is cur: a DateStyle naming only a style or only a field order keeps the
// other part of cur ("" = the default).
func resolveSettingFrom(name, value, cur string) (string, string, *Error) {
	key := strings.ToLower(name)
	d, ok := settingDefs[key]
	if !ok {
		if !strings.Contains(key, ".") {
			return "", "", Errorf(CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", name)
		}
		return key, value, nil
	}
	if d.readOnly {
		return "", "", Errorf(CodeCantChangeRuntimeParam, "parameter \"%s\" cannot be changed", d.name)
	}
	if d.normalize != nil {
		var v string
		var err *Error
		if key == "datestyle" && cur != "" {
			v, err = mergeDateStyle(cur, value)
		} else {
			v, err = d.normalize(value)
		}
		if err != nil {
			if err.Message == "" {
				err.Message = fmt.Sprintf("invalid value for parameter \"%s\": \"%s\"", d.name, value)
			}
			err.Message = strings.ReplaceAll(err.Message, paramPlaceholder, d.name)
			return "", "", err
		}
		value = v
	}
	return key, value, nil
}

// set changes a setting; local applies only until the transaction ends.
func (s *Settings) set(key, value string, local bool, display string) {
	if _, known := settingDefs[key]; !known {
		s.custom[key] = display
	}
	s.touch()
	if unboundSettings[key] {
		s.bindGen--
	}
	if local {
		if s.local == nil {
			s.local = map[string]string{}
		}
		s.local[key] = value
		return
	}
	delete(s.local, key)
	s.values[key] = value
}

// setDefault records a startup parameter as the session's default (what
// RESET returns to).
func (s *Settings) setDefault(key, value, display string) {
	if _, known := settingDefs[key]; !known {
		s.custom[key] = display
	}
	s.touch()
	s.defaults[key] = value
}

// setServerDefault records a default the server's configuration sets.
func (s *Settings) setServerDefault(key, value string) {
	s.setDefault(key, value, "")
	if s.serverSet == nil {
		s.serverSet = map[string]bool{}
	}
	s.serverSet[key] = true
}

func (s *Settings) reset(key string) {
	s.touch()
	delete(s.values, key)
	delete(s.local, key)
}

func (s *Settings) resetAll() {
	s.resetSettings(false)
}

// discardAll is DISCARD ALL's reset: RESET ALL plus the settings RESET ALL
// keeps (role: PostgreSQL's DISCARD ALL sets the session authorization
// back, which ends SET ROLE).
func (s *Settings) discardAll() {
	s.resetSettings(true)
}

func (s *Settings) resetSettings(discard bool) {
	s.touch()
	for k := range s.values {
		if d, ok := settingDefs[k]; ok && (d.readOnly || d.noResetAll && !discard) {
			continue
		}
		delete(s.values, k)
	}
	if discard {
		s.local = nil
		return
	}
	// SET LOCAL values of the settings RESET ALL keeps stay too
	for k := range s.local {
		if d, ok := settingDefs[k]; !ok || !d.noResetAll {
			delete(s.local, k)
		}
	}
}

// beginTx marks a transaction's start; its values are copied lazily by
// the first change (touch).
func (s *Settings) beginTx() {
	s.inTx = true
	s.snapshot = nil
}

// transactionScoped settings end with the transaction.
var transactionScoped = []string{"transaction_isolation", "transaction_read_only", "transaction_deferrable"}

func (s *Settings) endTx(commit bool) {
	changed := s.local != nil
	if !commit && s.snapshot != nil {
		s.values = s.snapshot
		changed = true
	}
	s.inTx = false
	s.snapshot = nil
	s.local = nil
	s.saves = nil
	for _, k := range transactionScoped {
		if _, ok := s.values[k]; ok {
			delete(s.values, k)
			changed = true
		}
	}
	if changed {
		s.gen++
		s.bindGen++
	}
}

// reportedSettings are the ParameterStatus settings, sorted by display
// name: [lower-case key, display name].
var reportedSettings [][2]string

// reported returns the current value of every ParameterStatus setting, in
// the order of reportedSettings.
func (s *Settings) reported(into []string) []string {
	into = into[:0]
	for _, r := range reportedSettings {
		v, _ := s.Get(r[0])
		into = append(into, v)
	}
	return into
}

// displayName is the spelling SHOW uses for a column header.
func (s *Settings) displayName(key string) string {
	if d, ok := settingDefs[key]; ok {
		return d.name
	}
	if n, ok := s.custom[key]; ok {
		return n
	}
	return key
}

// all lists every known setting and custom one, sorted, for SHOW ALL.
func (s *Settings) all() [][3]string {
	seen := map[string]bool{}
	var out [][3]string
	for k, d := range settingDefs {
		if seen[d.name] {
			continue
		}
		seen[d.name] = true
		v, _ := s.Get(k)
		out = append(out, [3]string{d.name, v, d.desc})
	}
	for k, n := range s.custom {
		v, _ := s.Get(k)
		out = append(out, [3]string{n, v, ""})
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i][0]) < strings.ToLower(out[j][0]) })
	return out
}

// Parameter is one configuration parameter as pg_settings shows it.
// Source is "default", "client" (a startup parameter), "command line"
// (the server's flags) or "session" (SET).
type Parameter struct {
	Name     string // display spelling
	Value    string // the current value
	Boot     string // the built-in default
	Reset    string // what RESET returns to: the startup value, else the default
	Source   string
	Desc     string
	ReadOnly bool
}

// Parameters lists every known parameter and the custom ones set, sorted
// case-insensitively by name, with where its value comes from.
func (s *Settings) Parameters() []Parameter {
	var out []Parameter
	add := func(key, name, boot, desc string, readOnly bool) {
		p := Parameter{Name: name, Boot: boot, Reset: boot, Source: "default", Desc: desc, ReadOnly: readOnly}
		p.Value, _ = s.Get(key)
		if v, ok := s.defaults[key]; ok {
			p.Reset, p.Source = v, "client"
			if s.serverSet[key] {
				p.Source = "command line"
			}
		}
		_, local := s.local[key]
		if _, set := s.values[key]; set || local {
			p.Source = "session"
		}
		out = append(out, p)
	}
	// the session's identity is not a parameter pg_settings shows (in
	// PostgreSQL these two are hidden from SHOW ALL and pg_settings)
	seen := map[string]bool{"session_authorization": true, "is_superuser": true}
	for k, d := range settingDefs {
		if !seen[d.name] {
			seen[d.name] = true
			add(k, d.name, d.def, d.desc, d.readOnly)
		}
	}
	for k, n := range s.custom {
		add(k, n, "", "", false)
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out
}

// paramPlaceholder stands for the parameter name in messages built by a
// normalize function (which does not know the name).
const paramPlaceholder = "\x00param\x00"

func normAny(v string) (string, *Error) { return v, nil }

func normEncoding(v string) (string, *Error) {
	switch strings.ToUpper(strings.ReplaceAll(v, "-", "")) {
	case "UTF8", "UNICODE":
		return "UTF8", nil
	}
	return "", Errorf(CodeFeatureNotSupported, "client_encoding \"%s\" is not supported", v).WithHint("Only UTF8 is supported.")
}

// normDateStyle reads a DateStyle value against the session default.
func normDateStyle(v string) (string, *Error) { return mergeDateStyle(settingDefs["datestyle"].def, v) }

// mergeDateStyle reads a DateStyle value as PostgreSQL's check_datestyle
// does: a list of an output style (ISO, SQL, Postgres, German) and a field
// order (YMD, DMY, MDY and their synonyms); a part not given keeps its
// value in cur, German implies DMY unless an order is given, DEFAULT
// stands for the default's parts, and two different styles or orders
// conflict.
func mergeDateStyle(cur, v string) (string, *Error) {
	style, order, _ := strings.Cut(cur, ",")
	style, order = strings.TrimSpace(style), strings.TrimSpace(order)
	haveStyle, haveOrder := false, false
	conflict := func() *Error {
		return &Error{Code: CodeInvalidParameterValue, Detail: `Conflicting "datestyle" specifications.`}
	}
	setStyle := func(s string) *Error {
		if haveStyle && style != s {
			return conflict()
		}
		style, haveStyle = s, true
		return nil
	}
	setOrder := func(o string) *Error {
		if haveOrder && order != o {
			return conflict()
		}
		order, haveOrder = o, true
		return nil
	}
	if strings.TrimSpace(v) == "" {
		return cur, nil
	}
	for _, part := range strings.Split(v, ",") {
		tok := strings.TrimSpace(part)
		if n := len(tok); n >= 2 && tok[0] == '"' && tok[n-1] == '"' {
			tok = tok[1 : n-1]
		}
		var err *Error
		switch strings.ToUpper(tok) {
		case "ISO":
			err = setStyle("ISO")
		case "SQL":
			err = setStyle("SQL")
		case "POSTGRES":
			err = setStyle("Postgres")
		case "GERMAN":
			err = setStyle("German")
			if !haveOrder {
				order = "DMY"
			}
		case "YMD":
			err = setOrder("YMD")
		case "DMY", "EURO", "EUROPEAN":
			err = setOrder("DMY")
		case "MDY", "US", "NONEURO", "NONEUROPEAN":
			err = setOrder("MDY")
		case "DEFAULT":
			ds, do, _ := strings.Cut(settingDefs["datestyle"].def, ", ")
			if !haveStyle {
				style = ds
			}
			if !haveOrder {
				order = do
			}
		case "":
			return "", &Error{Code: CodeInvalidParameterValue, Detail: "List syntax is invalid."}
		default:
			return "", &Error{Code: CodeInvalidParameterValue, Detail: fmt.Sprintf("Unrecognized key word: \"%s\".", strings.ToLower(tok))}
		}
		if err != nil {
			return "", err
		}
	}
	return style + ", " + order, nil
}

// normIntervalStyle reads an IntervalStyle value (the output styles
// exec/textout_interval.go prints).
func normIntervalStyle(v string) (string, *Error) {
	lv := strings.ToLower(strings.TrimSpace(v))
	switch lv {
	case "postgres", "postgres_verbose", "sql_standard", "iso_8601":
		return lv, nil
	}
	return "", &Error{Code: CodeInvalidParameterValue, Message: "invalid value for parameter \"" + paramPlaceholder + "\": \"" + v + "\"", Hint: "Available values: postgres, postgres_verbose, sql_standard, iso_8601."}
}

func normEnum(allowed ...string) func(string) (string, *Error) {
	return func(v string) (string, *Error) {
		lv := strings.ToLower(v)
		for _, a := range allowed {
			if lv == a {
				return a, nil
			}
		}
		return "", &Error{Code: CodeInvalidParameterValue, Hint: "Available values: " + strings.Join(allowed, ", ") + "."}
	}
}

func normIsolation(v string) (string, *Error) {
	return normEnum("serializable", "repeatable read", "read committed", "read uncommitted")(strings.Join(strings.Fields(v), " "))
}

func normBool(v string) (string, *Error) {
	switch strings.ToLower(v) {
	case "on", "true", "yes", "1", "t", "y":
		return "on", nil
	case "off", "false", "no", "0", "f", "n":
		return "off", nil
	}
	return "", &Error{Code: CodeInvalidParameterValue}
}

func normOnlyOn(v string) (string, *Error) {
	b, err := normBool(v)
	if err != nil {
		return "", err
	}
	if b != "on" {
		return "", Errorf(CodeFeatureNotSupported, "only on is supported for this parameter")
	}
	return b, nil
}

func normAppName(v string) (string, *Error) {
	// PostgreSQL replaces non-printable ASCII with '?' and truncates to 63 bytes.
	b := []byte(v)
	for i, c := range b {
		if c < 32 || c > 126 {
			b[i] = '?'
		}
	}
	if len(b) > 63 {
		b = b[:63]
	}
	return string(b), nil
}

func normIntRange(lo, hi int) func(string) (string, *Error) {
	return func(v string) (string, *Error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return "", Errorf(CodeInvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", paramPlaceholder, v)
		}
		if n < lo || n > hi {
			return "", Errorf(CodeInvalidParameterValue, "%d is outside the valid range for parameter \"%s\" (%d .. %d)", n, paramPlaceholder, lo, hi)
		}
		return strconv.Itoa(n), nil
	}
}

// normWorkMem reads a memory size in kB as PostgreSQL does (a bare number
// is kB; units B, kB, MB, GB, TB), checks work_mem's range (64 kB .. 2 TB)
// and displays it in the largest unit that divides it, as SHOW does.
func normWorkMem(v string) (string, *Error) {
	t := strings.TrimSpace(v)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	units := map[string]int64{"": 1, "kB": 1, "MB": 1 << 10, "GB": 1 << 20, "TB": 1 << 30}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	mult, ok := units[strings.TrimSpace(t[i:])]
	if strings.TrimSpace(t[i:]) == "B" {
		// bytes round up to kB
		mult, ok = 1, true
		n = (n + 1023) / 1024
	}
	if i == 0 || err != nil {
		return "", Errorf(CodeInvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", paramPlaceholder, v)
	}
	if !ok {
		return "", Errorf(CodeInvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", paramPlaceholder, v).
			WithHint("Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".")
	}
	const maxKB = 2147483647
	if n > maxKB/mult {
		return "", Errorf(CodeInvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", paramPlaceholder, v).
			WithHint("Value exceeds integer range.")
	}
	if n*mult < 64 {
		return "", Errorf(CodeInvalidParameterValue, "%d kB is outside the valid range for parameter \"%s\" (64 .. %d)", n*mult, paramPlaceholder, maxKB)
	}
	kb := n * mult
	for _, u := range []struct {
		name string
		kb   int64
	}{{"TB", 1 << 30}, {"GB", 1 << 20}, {"MB", 1 << 10}} {
		if kb%u.kb == 0 {
			return strconv.FormatInt(kb/u.kb, 10) + u.name, nil
		}
	}
	return strconv.FormatInt(kb, 10) + "kB", nil
}

// posixStdZone is a POSIX zone without daylight rules, its abbreviation
// spelled in letters (EST5, XYZ+3, ABC-05:30); exec.LoadTimeZone reads it.
var posixStdZone = regexp.MustCompile(`^[A-Za-z]{3,}[+-]?[0-9]{1,3}(:[0-9]{2}){0,2}$`)

func normTimeZone(v string) (string, *Error) {
	t := strings.TrimSpace(v)
	if t == "" {
		return "", &Error{Code: CodeInvalidParameterValue}
	}
	if strings.EqualFold(t, "utc") || strings.EqualFold(t, "gmt") || strings.EqualFold(t, "z") {
		return strings.ToUpper(t), nil
	}
	if strings.EqualFold(t, "local") {
		return "UTC", nil
	}
	// A number is hours east of Greenwich, kept in the POSIX form
	// PostgreSQL's SHOW prints (-7 → <-07>+07).
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		z, ok := zoneFromHours(f)
		if !ok {
			return "", zoneOutOfRange(t)
		}
		return z, nil
	}
	if _, err := time.LoadLocation(t); err == nil {
		return t, nil
	}
	if len(t) > 1 && (t[0] == '+' || t[0] == '-' || t[0] == '<' || strings.HasPrefix(strings.ToUpper(t), "UTC")) {
		return t, nil
	}
	if posixStdZone.MatchString(t) {
		return t, nil
	}
	return "", &Error{Code: CodeInvalidParameterValue, Message: fmt.Sprintf("invalid value for parameter \"TimeZone\": \"%s\"", v)}
}

// normDuration accepts PostgreSQL time units (ms default) and displays the
// value the way SHOW does: the largest unit that divides it.
func normDuration(v string) (string, *Error) {
	ms, err := parseDurationMS(v)
	if err != nil || ms < 0 || ms > math.MaxInt32 {
		return "", Errorf(CodeInvalidParameterValue, "invalid value for parameter: \"%s\"", v).WithHint("Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".")
	}
	return formatDurationMS(ms), nil
}

// durationUnits are the units of time settings, in milliseconds.
var durationUnits = map[string]float64{"": 1, "us": 0.001, "ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000}

func parseDurationMS(v string) (int64, error) {
	if v == "0" {
		return 0, nil // the default of every timeout, read per statement
	}
	t := strings.TrimSpace(v)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.' || (i == 0 && t[i] == '-')) {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, err
	}
	m, ok := durationUnits[unit]
	if !ok {
		return 0, fmt.Errorf("bad unit %q", unit)
	}
	return int64(math.Round(f * m)), nil
}

func formatDurationMS(ms int64) string {
	if ms == 0 {
		return "0"
	}
	for _, u := range []struct {
		n    int64
		name string
	}{{86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}} {
		if ms%u.n == 0 {
			return strconv.FormatInt(ms/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(ms, 10) + "ms"
}
