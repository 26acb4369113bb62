package play_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/baglab/baglab/live/play"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/recording"
)

// Play a recording at twice its speed into the master of ROS_MASTER_URI,
// publishing /clock, until it ends or Ctrl-C.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	in, err := recording.OpenInputs([]string{"run.bag"}, recording.InputOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer in.Close()
	o := play.DefaultOptions()
	o.Rate, o.Clock = 2, true
	p, err := play.New(play.FromInputs(in), in.Resolver(), o)
	if err != nil {
		fmt.Println(err)
		return
	}
	node, err := rosnode.New(ctx, rosnode.Options{Name: "/player"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer node.Close()
	st, err := p.Run(ctx, play.NodeAdvertiser{Node: node})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("published %d messages, p99 %v behind schedule\n", st.Messages, st.Lateness.P99)
}
