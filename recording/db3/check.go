package db3

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/baglab/baglab/record"
)

// Check examines a .db3 file or rosbag2 sqlite3 folder for `baglab doctor`:
// SQLite's own integrity check of every file (pages, b-trees, indexes),
// and metadata.yaml's message counts (CountProblems). It returns the
// problems found; the error is for a recording that cannot be opened at
// all.
func Check(path string) ([]record.Problem, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var probs []record.Problem
	add := func(sev record.Severity, format string, args ...any) {
		probs = append(probs, record.Problem{Offset: -1, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}
	for _, f := range r.files {
		rows, err := f.db.Query("PRAGMA integrity_check")
		if err != nil {
			add(record.SeverityError, "%s: %s", filepath.Base(f.path), record.Brief(sqlError(f.path, "integrity_check", err)))
			continue
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil || line == "ok" {
				continue
			}
			add(record.SeverityError, "%s: SQLite integrity check: %s", filepath.Base(f.path), strings.TrimPrefix(line, "*** in database main ***\n"))
		}
		if err := rows.Err(); err != nil {
			add(record.SeverityError, "%s: %s", filepath.Base(f.path), record.Brief(sqlError(f.path, "integrity_check", err)))
		}
		rows.Close()
	}
	if r.meta == nil {
		return probs, nil
	}
	s, err := r.Summary()
	if err != nil {
		add(record.SeverityError, "%s", record.Brief(err))
		return probs, nil
	}
	return append(probs, r.meta.CountProblems(s)...), nil
}

// CountProblems compares the message counts of metadata.yaml, overall and
// per topic, with those of s, the summary of the files it lists: a warning
// for each count that differs.
func (m *Bag2Metadata) CountProblems(s *record.Summary) []record.Problem {
	var probs []record.Problem
	add := func(format string, args ...any) {
		probs = append(probs, record.Problem{Offset: -1, Severity: record.SeverityWarning, Message: fmt.Sprintf(format, args...)})
	}
	if s.MessageCount != m.MessageCount {
		add("metadata.yaml counts %d messages, the files hold %d", m.MessageCount, s.MessageCount)
	}
	held := map[string]uint64{}
	for _, t := range s.Topics {
		held[t.Topic] += t.MessageCount
	}
	for _, t := range m.Topics {
		if n := held[t.Name]; n != t.MessageCount {
			add("metadata.yaml counts %d messages on %s, the files hold %d", t.MessageCount, t.Name, n)
		}
	}
	return probs
}
