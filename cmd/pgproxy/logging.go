package main

import (
	"flag"
	"io"
	"log/slog"
	"strings"

	"github.com/sirupsen/logrus"
)

// logFlags are shared by every subcommand.
type logFlags struct {
	level  *choiceValue
	format *choiceValue
}

func addLogFlags(fs *flag.FlagSet) *logFlags {
	return &logFlags{
		level:  newChoice(fs, "log-level", "info", "log verbosity", "debug", "info", "warn", "error"),
		format: newChoice(fs, "log-format", "text", "log line format", "text", "json"),
	}
}

// newLogger builds the process logger from the flags.
func (lf *logFlags) newLogger(w io.Writer) *logrus.Logger {
	log := logrus.New()
	log.SetOutput(w)
	lvl, err := logrus.ParseLevel(lf.level.value)
	if err != nil {
		lvl = logrus.InfoLevel
	}
	log.SetLevel(lvl)
	if lf.format.value == "json" {
		log.SetFormatter(&logrus.JSONFormatter{})
	} else {
		log.SetFormatter(&logrus.TextFormatter{FullTimestamp: true, DisableColors: true})
	}
	return log
}

// newSlog builds the event logger (observe.SetLogger) from the same
// flags: the same writer, level and format as newLogger's lines, with
// the level spelled in lower case as logrus spells it, so one process
// writes one log format.
func (lf *logFlags) newSlog(w io.Writer) *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(lf.level.value)); err != nil {
		lvl = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lvl, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.LevelKey {
			if l, ok := a.Value.Any().(slog.Level); ok {
				a.Value = slog.StringValue(strings.ToLower(l.String()))
			}
		}
		return a
	}}
	if lf.format.value == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
