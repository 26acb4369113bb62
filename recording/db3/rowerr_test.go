package db3

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
)

// damagedDB writes a three-message .db3 (rows 1..3 on /chatter) and then
// runs the damaging statement on it.
func damagedDB(t *testing.T, damage string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bad.db3")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(&record.Channel{Topic: "/chatter", MessageEncoding: "cdr",
		Schema: &record.Schema{Name: "std_msgs/msg/String", Encoding: "ros2msg", Data: []byte("string data\n")}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := w.WriteMessage(id, &record.Message{LogTime: int64(100 + i), Data: []byte{0, 1, 0, 0, 1, 0, 0, 0, 0}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(damage); err != nil {
		t.Fatalf("%s: %v", damage, err)
	}
	return path
}

// unconstrained rebuilds table without its NOT NULL constraints, as a
// damaged or hand-made database may have it.
func unconstrained(table string) string {
	return "CREATE TABLE t2 AS SELECT * FROM " + table + "; DROP TABLE " + table + "; ALTER TABLE t2 RENAME TO " + table + "; "
}

// readAll opens path, reads its summary (when summary is set) and every
// message, and returns the first error.
func readAll(t testing.TB, path string, summary bool) error {
	r, err := Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	if summary {
		if _, err := r.Summary(); err != nil {
			return err
		}
	}
	it, err := r.Messages(record.Filter{})
	if err != nil {
		return err
	}
	return recordtest.Read(t, it, func(*record.Message) {})
}

// readDamaged reads the damaged database at path as readAll does, once
// without and once with its summary: opening, the summary, the message
// iterator and each message give data or a *record.Error, never a panic.
func readDamaged(t testing.TB, path, what string) {
	t.Helper()
	for _, summary := range []bool{false, true} {
		if err := readAll(t, path, summary); err != nil {
			var re *record.Error
			if !errors.As(err, &re) {
				t.Fatalf("%s (summary %v): error %T %v is not a record.Error", what, summary, err, err)
			}
		}
	}
}

// TestBadRowErrors: a bad value in a row of messages, topics or
// message_definitions is named by table, row id and column, in words, not
// with the driver's "sql: Scan error" text.
func TestBadRowErrors(t *testing.T) {
	cases := []struct{ name, damage, want string }{
		{"text timestamp", `UPDATE messages SET timestamp = 'abc' WHERE id = 2`,
			`field messages.timestamp: malformed data: messages row 2: column timestamp holds TEXT "abc", want an integer`},
		{"null timestamp", unconstrained("messages") + `UPDATE messages SET timestamp = NULL WHERE id = 3`,
			`messages row 3: column timestamp holds NULL, want an integer`},
		{"null data", unconstrained("messages") + `UPDATE messages SET data = NULL WHERE id = 2`,
			`field messages.data: malformed data: messages row 2: column data holds NULL, want a BLOB`},
		{"missing topic", `UPDATE messages SET topic_id = 99 WHERE id = 3`,
			`field messages.topic_id: malformed data: messages row 3: column topic_id holds 99, which no row of topics has`},
		{"null topic name", unconstrained("topics") + `UPDATE topics SET name = NULL WHERE id = 1`,
			`field topics.name: malformed data: topics row 1: column name holds NULL, want text`},
		{"null definition", unconstrained("message_definitions") + `UPDATE message_definitions SET encoded_message_definition = NULL`,
			`message_definitions row 1: column encoded_message_definition holds NULL, want text`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := damagedDB(t, c.damage)
			for _, summary := range []bool{true, false} {
				err := readAll(t, path, summary)
				if err == nil {
					t.Fatalf("read without error (summary %v)", summary)
				}
				var re *record.Error
				if !errors.As(err, &re) || re.File != path || !errors.Is(err, record.ErrFormat) {
					t.Fatalf("error %v: want a record.Error on %s unwrapping to ErrFormat", err, path)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, path+": ") || !strings.Contains(msg, c.want) || strings.Contains(msg, "sql:") {
					t.Errorf("error (summary %v)\n %s\nwant it to start with the file and hold\n %s\nand no driver text", summary, msg, c.want)
				}
			}
		})
	}
}

// TestMalformedDatabaseInWords: a database whose pages SQLite finds
// malformed is said to be damaged, naming the file.
func TestMalformedDatabaseInWords(t *testing.T) {
	err := sqlError("x.db3", "messages", errors.New("database disk image is malformed (11)"))
	if !errors.Is(err, record.ErrTruncated) || !strings.Contains(err.Error(), "x.db3: ") || !strings.Contains(err.Error(), "the database file is damaged") || strings.Contains(err.Error(), "(11)") {
		t.Errorf("malformed: %v", err)
	}
	err = sqlError("x.db3", "topics", errors.New("file is not a database (26)"))
	if !errors.Is(err, record.ErrFormat) || !strings.Contains(err.Error(), "x.db3: ") || !strings.Contains(err.Error(), "not an SQLite database") {
		t.Errorf("not a database: %v", err)
	}
}
