package db3

import (
	"fmt"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// rawConn is a sqlite3 connection driven through modernc's C API (the
// code database/sql's modernc driver calls), for the Writer: database/sql
// copies every BLOB argument into freshly allocated C memory and matches
// each parameter against every argument, which made the INSERTs of a
// conversion cost more than its reading; the Writer instead binds message
// data where it already lies (inserter's C arenas). One goroutine uses it
// at a time.
type rawConn struct {
	tls  *libc.TLS
	db   uintptr
	path string
}

// openRaw creates (or opens) the database at path.
func openRaw(path string) (*rawConn, error) {
	c := &rawConn{tls: libc.NewTLS(), path: path}
	cpath, err := libc.CString(path)
	if err != nil {
		c.tls.Close()
		return nil, err
	}
	defer libc.Xfree(c.tls, cpath)
	pdb := libc.Xmalloc(c.tls, 8)
	if pdb == 0 {
		c.tls.Close()
		return nil, fmt.Errorf("db3: %s: out of memory", path)
	}
	defer libc.Xfree(c.tls, pdb)
	*(*uintptr)(cptr(pdb)) = 0
	rc := sqlite3.Xsqlite3_open_v2(c.tls, cpath, pdb, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_CREATE, 0)
	c.db = *(*uintptr)(cptr(pdb))
	if rc != sqlite3.SQLITE_OK {
		err := c.err(rc, "open")
		c.close()
		return nil, err
	}
	return c, nil
}

// err is the error of result code rc from what, with sqlite's message.
func (c *rawConn) err(rc int32, what string) error {
	msg := ""
	if c.db != 0 {
		msg = libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db))
	} else {
		msg = libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc))
	}
	return fmt.Errorf("db3: %s: %s: %s (%d)", c.path, what, msg, rc)
}

// exec runs sql, one or more statements without parameters.
func (c *rawConn) exec(sql string) error {
	csql, err := libc.CString(sql)
	if err != nil {
		return err
	}
	defer libc.Xfree(c.tls, csql)
	if rc := sqlite3.Xsqlite3_exec(c.tls, c.db, csql, 0, 0, 0); rc != sqlite3.SQLITE_OK {
		return c.err(rc, sql)
	}
	return nil
}

// prepare compiles one statement.
func (c *rawConn) prepare(sql string) (uintptr, error) {
	csql, err := libc.CString(sql)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(c.tls, csql)
	pp := libc.Xmalloc(c.tls, 8)
	if pp == 0 {
		return 0, fmt.Errorf("db3: %s: out of memory", c.path)
	}
	defer libc.Xfree(c.tls, pp)
	*(*uintptr)(cptr(pp)) = 0
	if rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, csql, -1, pp, 0); rc != sqlite3.SQLITE_OK {
		return 0, c.err(rc, sql)
	}
	return *(*uintptr)(cptr(pp)), nil
}

// run executes sql once with args (int64, int, string or []byte, copied
// by sqlite).
func (c *rawConn) run(sql string, args ...any) error {
	stmt, err := c.prepare(sql)
	if err != nil {
		return err
	}
	defer sqlite3.Xsqlite3_finalize(c.tls, stmt)
	for i, a := range args {
		var rc int32
		switch v := a.(type) {
		case int:
			rc = sqlite3.Xsqlite3_bind_int64(c.tls, stmt, int32(i+1), int64(v))
		case int64:
			rc = sqlite3.Xsqlite3_bind_int64(c.tls, stmt, int32(i+1), v)
		case string:
			rc = c.bindCopy(stmt, i+1, []byte(v), true)
		case []byte:
			rc = c.bindCopy(stmt, i+1, v, false)
		default:
			return fmt.Errorf("db3: argument %d of %s: %T", i+1, sql, a)
		}
		if rc != sqlite3.SQLITE_OK {
			return c.err(rc, sql)
		}
	}
	if rc := sqlite3.Xsqlite3_step(c.tls, stmt); rc != sqlite3.SQLITE_DONE {
		return c.err(rc, sql)
	}
	return nil
}

// bindCopy binds text or a BLOB that sqlite copies (SQLITE_TRANSIENT).
func (c *rawConn) bindCopy(stmt uintptr, i int, b []byte, text bool) int32 {
	p := libc.Xmalloc(c.tls, libc.Tsize_t(len(b)+1))
	if p == 0 {
		return sqlite3.SQLITE_NOMEM
	}
	defer libc.Xfree(c.tls, p)
	copy(unsafe.Slice((*byte)(cptr(p)), len(b)), b)
	const transient = ^uintptr(0) // SQLITE_TRANSIENT: sqlite copies now
	if text {
		return sqlite3.Xsqlite3_bind_text(c.tls, stmt, int32(i), p, int32(len(b)), transient)
	}
	return sqlite3.Xsqlite3_bind_blob(c.tls, stmt, int32(i), p, int32(len(b)), transient)
}

// close closes the connection; statements must be finalized first.
func (c *rawConn) close() error {
	var err error
	if c.db != 0 {
		if rc := sqlite3.Xsqlite3_close_v2(c.tls, c.db); rc != sqlite3.SQLITE_OK {
			err = c.err(rc, "close")
		}
		c.db = 0
	}
	c.tls.Close()
	return err
}

// cptr is C memory address p as a pointer (C memory is not Go's: the
// collector neither moves nor frees it).
func cptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }
