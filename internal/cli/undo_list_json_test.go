package cli

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/apply"
)

// undo --list -o json: one object per run with what the text list shows
// (the Cockpit page reads it); the confirm state of a run with a window is
// checked by the Cockpit test (test/cockpit) on a real apply --confirm.
func TestUndoListJSON(t *testing.T) {
	var out bytes.Buffer
	runs := []apply.Manifest{
		{ID: "20260101-000000-1", State: apply.StateComplete, Started: "2026-01-01T00:00:00Z", Changes: []string{"sysctl vm.swappiness 60 → 10"}, Steps: make([]apply.Step, 2)},
		{ID: "20260101-000001-2", State: apply.StateDamaged, Error: "manifest.json: unexpected end of JSON input"},
	}
	if err := undoListJSON(&Env{Stdout: &out}, runs); err != nil {
		t.Fatal(err)
	}
	var got []undoRun
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	want := []undoRun{
		{ID: "20260101-000000-1", State: "complete", Started: "2026-01-01T00:00:00Z", Changes: []string{"sysctl vm.swappiness 60 → 10"}, Steps: 2},
		{ID: "20260101-000001-2", State: "damaged", Changes: []string{}, Error: "manifest.json: unexpected end of JSON input"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	out.Reset()
	if err := undoListJSON(&Env{Stdout: &out}, nil); err != nil || out.String() != "[]\n" {
		t.Errorf("no runs: %q, %v; want []", out.String(), err)
	}
	if _, _, code := run(t, "undo", "-o", "json"); code != ExitUsage {
		t.Errorf("undo -o json without --list: exit %d, want %d", code, ExitUsage)
	}
}

// -o completes the formats each command's help names, jsonl included.
func TestOutputCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "watch", "-o", ""}, "text\njson\njsonl\nhtml\n"},
		{[]string{"__complete", "undo", "-o", ""}, "text\njson\n"},
		{[]string{"__complete", "plan", "-o", ""}, "text\njson\ndiff\n"},
	} {
		out, _, _ := run(t, c.args...)
		if got := out[:strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")+1]; got != c.want {
			t.Errorf("%v: %q, want %q", c.args[1:3], got, c.want)
		}
	}
}
