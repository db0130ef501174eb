package coordinator

import (
	"encoding/json"
	"reflect"
	"testing"

	"ioswarm/settings"
	"ioswarm/wire"
)

// notSettings are the workload's fields that are not in settings.Job, each
// for its reason: what only the coordinator holds or settles (the ranks
// get what follows from it), and what names the run rather than the job.
var notSettings = map[string]string{
	"Dir":         "each node's directory travels in its own setup; the result records --dir",
	"ReadShift":   "the ranks get their sources; the result records the shift settled and asked",
	"PlanThreads": "the resource plan of a series, checked by the coordinator",
	"Reuse":       "the coordinator finds the kept job; the ranks get FilesOf",
	"ReuseWrites": "checked by the coordinator against the phases",
	"Version":     "the result's top level",
	"CommandLine": "the result's top level",
	"Label":       "the result's top level",
	"Progress":    "the coordinator's live output",
}

// A setting belongs in settings.Job, which the ranks and the result get
// whole: a field added to the workload beside it fails here until it is
// moved there or said to be the coordinator's alone.
func TestWorkloadSettingsAreOneRecord(t *testing.T) {
	wt := reflect.TypeFor[Workload]()
	for i := range wt.NumField() {
		f := wt.Field(i)
		if f.Anonymous && f.Type == reflect.TypeFor[settings.Job]() {
			continue
		}
		if _, ok := notSettings[f.Name]; !ok {
			t.Errorf("Workload.%s is neither in settings.Job nor listed as the coordinator's alone", f.Name)
		}
	}
}

// everySetting is a settings.Job with every field set to a value no
// default has, and its shared-file and metadata settings in force (so
// Applied keeps them): whatever drops or misses one field shows.
func everySetting(t *testing.T) settings.Job {
	t.Helper()
	var j settings.Job
	v := reflect.ValueOf(&j).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(1000 + i))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.String:
			f.SetString("value-" + v.Type().Field(i).Name)
		case reflect.Slice:
			// Phases, set below.
		default:
			t.Fatalf("settings.Job.%s: a %s; teach everySetting to set it", v.Type().Field(i).Name, f.Kind())
		}
	}
	j.Phases = settings.PhaseList{settings.Write, settings.MDStat}
	j.Layout = settings.Shared
	if !reflect.DeepEqual(j.Applied(), j) {
		t.Fatalf("Applied cleared a setting of %+v", j)
	}
	return j
}

// What a rank receives in its setup, decoded as the rank decodes it,
// holds every setting of the workload, each with its value.
func TestRanksReceiveEverySetting(t *testing.T) {
	want := everySetting(t)
	j := &job{o: Workload{Job: want}, id: "abcd01", seed: 7}
	data, err := json.Marshal(wire.Setup{Job: j.rankJob(), Rank: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got wire.Setup
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Job.Job, want) {
		t.Errorf("the rank received\n%+v\nwant\n%+v", got.Job.Job, want)
	}
	if got.Job.ID != "abcd01" || got.Job.Seed != 7 {
		t.Errorf("job id %q seed %d", got.Job.ID, got.Job.Seed)
	}
}

// The result's config records every setting under its own name with its
// value, the ranks' record and the result's being one (a setting missing
// from result.Config or from config fails here).
func TestConfigRecordsEverySetting(t *testing.T) {
	rec := everySetting(t)
	w := Workload{Job: rec}
	settingsDoc, configDoc := jsonObject(t, rec), jsonObject(t, w.config(2, 1))
	if n := reflect.TypeFor[settings.Job]().NumField(); len(settingsDoc) != n {
		t.Errorf("settings.Job has %d fields, %d in its JSON: each needs a name of its own", n, len(settingsDoc))
	}
	for name, want := range settingsDoc {
		got, ok := configDoc[name]
		switch {
		case !ok:
			t.Errorf("config lacks %q", name)
		case !reflect.DeepEqual(got, want):
			t.Errorf("config %q = %v, want %v", name, got, want)
		}
	}
}

// jsonObject is v as the generic JSON object a script reading it sees.
func jsonObject(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}
