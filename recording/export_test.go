package recording

// NewPlan is newPlan for the tests of the package's API.
var NewPlan = (*Inputs).newPlan
