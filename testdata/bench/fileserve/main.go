// Command fileserve is the HTTP server of testdata/bench/remote.sh
// (SERVER=http): Go's file server over one folder, with range requests,
// on a free loopback port. It prints its base URL, then serves until it
// is killed. It costs a few tenths of a CPU-second per GB served (the
// kernel's sendfile), so that what remote.sh measures through it is
// baglab's own cost of reading over the network. -latency delays each
// response, as a server across a network would (S3 answers in tens of
// milliseconds): what a reading's round trips cost then shows in its time.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	latency := flag.Duration("latency", 0, "delay each response by this long")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: fileserve [-latency D] DIR")
		os.Exit(2)
	}
	files := http.FileServer(http.Dir(flag.Arg(0)))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fileserve:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", l.Addr())
	err = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(*latency)
		files.ServeHTTP(w, r)
	}))
	fmt.Fprintln(os.Stderr, "fileserve:", err)
	os.Exit(1)
}
