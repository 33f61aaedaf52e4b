package watch

import "encoding/json"

// Line is one line of `watch -o jsonl`: a JSON object per sample while the
// watch runs, for a reader that charts it live (the Cockpit page), then one
// closing object with the verdict over the whole watch.
//
//	{"type":"sample","sample":{...},"bottlenecks":[...]}  verdict over the last Window samples
//	{"type":"end","interval_s":1,"samples":30,"bottlenecks":[...]}
type Line struct {
	Type        string            `json:"type"` // sample or end
	Sample      *Sample           `json:"sample,omitempty"`
	IntervalS   float64           `json:"interval_s,omitempty"`
	Samples     int               `json:"samples,omitempty"`
	Bottlenecks []Bottleneck      `json:"bottlenecks"`
	Skipped     map[string]string `json:"not_collected,omitempty"`
	Dropped     int               `json:"dropped_samples,omitempty"`
}

// SampleLine is the line for one sample and the verdict so far (what
// Options.OnSample receives), without its newline.
func SampleLine(s Sample, verdict []Bottleneck) ([]byte, error) {
	if verdict == nil {
		verdict = []Bottleneck{}
	}
	return json.Marshal(Line{Type: "sample", Sample: &s, Bottlenecks: verdict})
}

// EndLine is the closing line: the verdict over every sample of r, without
// the samples (they were streamed).
func EndLine(r *Result) ([]byte, error) {
	v := r.Bottlenecks
	if v == nil {
		v = []Bottleneck{}
	}
	return json.Marshal(Line{Type: "end", IntervalS: r.IntervalS, Samples: len(r.Samples), Bottlenecks: v, Skipped: r.Skipped, Dropped: r.Dropped})
}
