// Package plot draws analysis results with gonum/plot: placements on each
// surface with the learned model means and 1σ/2σ ellipses, grasp success
// rates with their Wilson intervals, and fact timelines. Each figure is
// written as PNG or SVG.
package plot
