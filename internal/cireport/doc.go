// Package cireport writes what a CI system reads of a check: JUnit XML in
// the common schema (the Ant/Jenkins JUnit.xsd) and Markdown table cells.
// `check --baseline` (package baseline) and `check --spec` (package
// analysis/contract) report through it.
package cireport
