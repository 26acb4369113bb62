package analysis

import (
	"math"
	"runtime"
	"testing"
	"time"
)

func TestArgsOptions(t *testing.T) {
	d := DefaultArgs()
	o, err := d.Options(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Learn.Theta != ThetaLinear || o.Learn.PruneFraction != 0.05 || o.Learn.Seed != 100 || o.Learn.Disable ||
		o.Learn.Workers != runtime.GOMAXPROCS(0) || o.WindowNs != 0 {
		t.Errorf("defaults: %+v", o)
	}
	a := Args{Theta: "circular", Prune: false, PruneThreshold: 7, Seed: -3, NoLearn: true, Jobs: 2, Window: 30 * time.Second}
	if o, err = a.Options(nil); err != nil || o.Learn.Theta != ThetaCircular || o.Learn.PruneFraction != -1 || o.Learn.Seed != -3 ||
		!o.Learn.Disable || o.Learn.Workers != 2 || o.WindowNs != 30e9 {
		t.Errorf("%+v, %v", o, err)
	}
	for _, c := range []struct {
		set  func(*Args)
		want string
	}{
		{func(a *Args) { a.Theta = "spiral" }, `--theta "spiral": want linear or circular`},
		{func(a *Args) { a.PruneThreshold = 1 }, "--prune-threshold 1: want a share between 0 and 1 (use --prune=false to keep every group)"},
		{func(a *Args) { a.PruneThreshold = math.NaN() }, "--prune-threshold NaN: want a share between 0 and 1 (use --prune=false to keep every group)"},
		{func(a *Args) { a.Seed = 0 }, "--seed 0: Weka's EM takes a non-zero seed"},
		{func(a *Args) { a.Window = -time.Second }, "--window must not be negative"},
		{func(a *Args) { a.Jobs = 0 }, "--jobs must be at least 1"},
	} {
		a := DefaultArgs()
		c.set(&a)
		if _, err := a.Options(nil); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
