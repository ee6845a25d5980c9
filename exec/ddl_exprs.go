package exec

// BindCheck binds a CHECK constraint's expression against td without
// evaluating it, as PostgreSQL analyzes a constraint when CREATE TABLE
// runs: an unknown function (42883), an operator without a match, a
// literal its context's type rejects (22P02) or a non-boolean result
// (42804) fail the statement rather than every later write.
func (e *Engine) BindCheck(sess *Session, td *TableDef, check string) error {
	pred, b, err := e.bindTableExprSQL(sess, td, check, nil)
	if err != nil {
		return err
	}
	_, err = b.coerceBool(pred, "CHECK")
	return err
}

// BindDefault binds column col's DEFAULT expression against td without
// evaluating it (a nextval default must not draw a value), with the
// assignment cast to the column's type INSERT applies: PostgreSQL
// analyzes defaults when the DDL runs, so an unknown function (42883), a
// literal the column type rejects (22P02) or a type that has no
// assignment cast to the column's (42804, "default expression is of
// type") fail CREATE TABLE and ALTER TABLE … SET DEFAULT.
func (e *Engine) BindDefault(sess *Session, td *TableDef, col int) error {
	c := td.Columns[col]
	if c.Default == "" {
		return nil
	}
	expr, b, err := e.bindTableExprSQL(sess, td, c.Default, nil)
	if err != nil {
		return err
	}
	from := expr.Type()
	if from.OID != OIDUnknown && from.OID != c.Type.OID && !canCast(from, c.Type, castAssignment) {
		return &Error{Code: CodeDatatypeMismatch,
			Message: "column \"" + c.Name + "\" is of type " + c.Type.String() + " but default expression is of type " + from.String(),
			Hint:    "You will need to rewrite or cast the expression."}
	}
	_, err = b.coerce(expr, c.Type, castAssignment, "")
	return err
}
