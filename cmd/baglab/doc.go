// Command baglab reads ROS1 bags, MCAP files and ROS2 bags, decodes every
// message from the definitions stored in the file, exports Parquet/CSV and
// computes the analyses of robot experiments.
//
// Exit codes: 0 ok, 1 a problem found (doctor, baseline drift), 2 usage
// error, 3 bad input data, 130 interrupted.
package main
