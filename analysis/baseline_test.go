package analysis

import (
	"strings"
	"testing"
)

func TestCompareBaseline(t *testing.T) {
	old := `{"kind":"grasps","grasps":[{"model_id":"1","grasp_id":"2","success_rate":0.5,"wilson_low":"NaN"},
		{"model_id":"1","grasp_id":"3","success_rate":0.25,"wilson_low":0.1}],"models":[{"decision_value":"+Inf","n":3}]}`
	cases := []struct {
		name, new string
		tol       float64
		want      []string
	}{
		{"same", old, 0, nil},
		{"within", strings.Replace(old, "0.25", "0.2501", 1), 1e-3, nil},
		{"beyond", strings.Replace(old, "0.25", "0.26", 1), 1e-3,
			[]string{"grasps[grasp_id=3,model_id=1].success_rate: 0.25 -> 0.26 (+4%)"}},
		{"reordered", `{"kind":"grasps","grasps":[{"model_id":"1","grasp_id":"3","success_rate":0.25,"wilson_low":0.1},
		{"model_id":"1","grasp_id":"2","success_rate":0.5,"wilson_low":"NaN"}],"models":[{"decision_value":"+Inf","n":3}]}`, 0, nil},
		{"removed", `{"kind":"grasps","grasps":[{"model_id":"1","grasp_id":"2","success_rate":0.5,"wilson_low":"NaN"}],"models":[{"decision_value":"+Inf","n":3}]}`, 0,
			[]string{`grasps[grasp_id=3,model_id=1]: removed (was {"grasp_id":"3","model_id":"1","success_rate":0.25,"wilson_low":0.1})`}},
		{"inf to finite", strings.Replace(old, `"+Inf"`, "0.5", 1), 1, []string{`models[0].decision_value: "+Inf" -> 0.5`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := CompareBaseline([]byte(old), []byte(c.new), c.tol)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, x := range d {
				got = append(got, x.String())
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("diffs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
	if _, err := CompareBaseline([]byte("{"), []byte("{}"), 0); err == nil {
		t.Error("bad JSON accepted")
	}
}
