// Package slog stands in for the standard library's log/slog (Go 1.21+) so Kepler's reader files compile
// unchanged with Debian's Go 1.19: the test places this package at the import path "log/slog" in a
// temporary GOPATH. It implements only what Kepler's internal/device files call, and discards every record
// unless KEPLER_PROBE_LOG is set (then it prints them to stderr).
package slog

import (
	"fmt"
	"os"
)

// Logger keeps the attributes given to With.
type Logger struct {
	attrs []any
}

var defaultLogger = &Logger{}

// Default returns the process's logger.
func Default() *Logger { return defaultLogger }

// With returns a logger that adds args to every record.
func (l *Logger) With(args ...any) *Logger {
	return &Logger{attrs: append(append([]any{}, l.attrs...), args...)}
}

func (l *Logger) log(level, msg string, args []any) {
	if os.Getenv("KEPLER_PROBE_LOG") == "" {
		return
	}
	fmt.Fprintln(os.Stderr, level, msg, l.attrs, args)
}

// Debug logs at debug level.
func (l *Logger) Debug(msg string, args ...any) { l.log("DEBUG", msg, args) }

// Info logs at info level.
func (l *Logger) Info(msg string, args ...any) { l.log("INFO", msg, args) }

// Warn logs at warn level.
func (l *Logger) Warn(msg string, args ...any) { l.log("WARN", msg, args) }

// Error logs at error level.
func (l *Logger) Error(msg string, args ...any) { l.log("ERROR", msg, args) }
