package main

import (
	"flag"
	"io"

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
