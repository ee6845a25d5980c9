// Package failpoint lets tests make chosen code paths fail, stall or
// "crash" at named points, without any cost in production builds.
//
// Points are typed constants of type Point declared in points.go; call
// sites pass a constant, never a string literal (a test walks the module's
// source and rejects literals and conversions), so every point is
// greppable and no typo can create a point that nothing triggers.
//
// Build tags: with `-tags failpoints` Inject consults the registry that
// Enable fills; without the tag Inject is an inlined no-op that returns
// nil and Enable reports ErrDisabled. The Makefile runs the test suite
// with the tag; release builds omit it.
package failpoint
