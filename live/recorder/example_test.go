package recorder_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"

	"github.com/baglab/baglab/live/recorder"
)

// Recording every topic but /rosout into an lz4 bag until Ctrl-C, then
// printing the drops per topic. (Needs a running ROS master, so it has no
// output to check.)
func ExampleRecorder_Run() {
	r, err := recorder.New(recorder.Options{Output: "run.bag", All: true, Compression: "lz4",
		Logf: func(f string, a ...any) { log.Printf(f, a...) }})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := r.Run(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range res.Topics {
		fmt.Println(t.Topic, t.Written, t.Dropped)
	}
}
