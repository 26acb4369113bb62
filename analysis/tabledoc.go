package analysis

// tableDoc is what people are told about a table: a caption and the
// units of its columns ("column:unit"). Times ("*_ns") and seconds ("*_s")
// carry their unit in the column name (see Column).
type tableDoc struct {
	caption string
	units   []string
}

// Units of the placement tables: positions and spreads in metres in the
// placement's reference frame, rotations in radians.
var (
	placementUnits = []string{"mean_x:m", "mean_y:m", "mean_z:m", "sd_x:m", "sd_y:m", "sd_z:m",
		"sd_sample_x:m", "sd_sample_y:m", "sd_sample_z:m", "rotation_circular_mean:rad", "rotation_circular_sd:rad",
		"min_x:m", "max_x:m", "min_y:m", "max_y:m", "min_z:m", "max_z:m", "spread:m",
		"x:m", "y:m", "z:m", "rotation:rad", "sigma_x:m", "sigma_y:m", "sigma_z:m", "sigma_theta:rad",
		"mean_theta:rad", "delta_x:m", "delta_y:m", "delta_rotation:rad"}
	mapUnits = []string{"center_x:m", "center_y:m", "radius:m", "max_range:m", "mean_frontier_width:m",
		"area:m²", "perimeter:m", "open_perimeter:m"}
)

// tableDocs describes the tables of the analyses by table name; NewTable
// applies them. An analysis may instead call Describe on its tables (an
// analysis in its own package must).
var tableDocs = map[string]tableDoc{
	"placement_groups": {"Placements per item, room, surface and reference frame: count, mean position and its " +
		"population standard deviation (m, in the reference frame), circular mean and deviation of the rotation " +
		"(rad), and spread = √(sd_x² + sd_y²) (m).", placementUnits},
	"frame_ranking": {"Reference frames of each item ranked by spread (m): the frame with the smallest spread " +
		"explains the item's placements best (rank 1).", placementUnits},
	"models": {"Placement models learned by the EM learner per group: the chosen cluster's mean position (m) and " +
		"rotation (rad), its decision value (rank_m, lower is better) and standard deviations; pruned groups have " +
		"fewer placements than the 5% rule asks for.", placementUnits},
	"model_clusters": {"Every EM cluster of every learned model: members, prior, rank_m, mean and standard " +
		"deviations (m, rad).", placementUnits},
	"recorded_models": {"Models recorded in the input compared with the learned ones; delta = learned − recorded " +
		"(m, rad).", placementUnits},
	"placements": {"Every placement in canonical order with its EM cluster: position (m) and rotation (rad) in " +
		"the reference frame.", placementUnits},
	"grasps": {"Success rate of each grasp of each grasp model with its Wilson 95% interval; untried grasps " +
		"(no attempts) have no rate.", nil},
	"grasp_models": {"Grasp success per grasp model (tried grasps summed) with its Wilson 95% interval and the " +
		"best and worst grasp.", nil},
	"grasp_objects": {"Grasp success per object (tried grasps of all its models summed) with its Wilson 95% " +
		"interval and the best and worst grasp.", nil},
	"attempts": {"Every grasp attempt outcome from the GraspAndStore results and the yes/no feedback.", nil},
	"attempt_rates": {"Attempt success per object and source with its Wilson 95% interval; the two sources are " +
		"two views of the same attempts and are never added together.", nil},
	"learning_curve": {"Attempt success per object and source in consecutive time windows, with the Wilson 95% " +
		"interval of each window.", nil},
	"facts": {"Each fact (subject, property, target): how often it held, its total and mean duration (s) and " +
		"its duration weighted by confidence (s); censored counts intervals still holding at the end.", nil},
	"fact_intervals": {"Every interval a fact held: start and end (UTC), duration (s), confidence-weighted " +
		"duration (s) and mean confidence.", nil},
	"queries_all":        {"All query calls: responses, success rate and latency from request to response (s).", nil},
	"queries_by_id":      {"Query calls per query id: responses, success rate and latency (s).", nil},
	"queries_by_pattern": {"Query calls per pattern: responses, success rate and latency (s).", nil},
	"query_errors":       {"Error messages of failed queries and how often each occurred.", nil},
	"queries":            {"Every query call: request and response, success, error and latency (s).", nil},
	"map_summary":        {"The topological map: vertices, edges, other objects, connected components, dangling edges.", nil},
	"degree_histogram":   {"How many vertices have each degree (number of edges).", nil},
	"map_nodes":          {"Every vertex of the map with its degree and component.", nil},
	"map_edges":          {"Every edge of the map; dangling edges name a missing vertex.", nil},
	"crossings":          {"Crossing descriptors: centre (m), radius (m), maximum range (m), frontiers and their mean width (m).", mapUnits},
	"place_profiles":     {"Place profiles: points, enclosed area (m²), perimeter and open perimeter (m).", mapUnits},
}
