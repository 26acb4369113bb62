package analysis

func NewGrasps(int64) Analyzer { return nil }
func NewFacts() Analyzer       { return nil }
func NewMap() Analyzer         { return nil }
func NewQueries() Analyzer     { return nil }
