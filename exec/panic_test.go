package exec

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/observe"
)

// A recovered panic reaches the client as XX000 and the log with the
// stack of the goroutine that panicked.
func TestInternalPanicLogsTheStack(t *testing.T) {
	var buf bytes.Buffer
	observe.SetLogger(slog.New(slog.NewJSONHandler(&buf, nil)))
	defer observe.SetLogger(nil)
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = internalPanic(r)
			}
		}()
		panicsHere()
		return nil
	}()
	e, ok := err.(*Error)
	if !ok || e.Code != CodeInternalError || !strings.Contains(e.Message, "boom") {
		t.Fatalf("error = %#v", err)
	}
	if !strings.Contains(string(e.Stack), "panicsHere") {
		t.Fatalf("error's stack does not name the panicking function:\n%s", e.Stack)
	}
	if log := buf.String(); !strings.Contains(log, `"panic":"boom"`) || !strings.Contains(log, "panicsHere") {
		t.Fatalf("log lacks the panic or its stack: %s", log)
	}
}

func panicsHere() { panic("boom") }
