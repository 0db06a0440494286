-- `--from`: for each rule, the newest exported snapshot (machine, export time) that holds it;
-- its entries and tool patterns come from that same snapshot.
-- No parameters (reads raw_rules). Creates temp table policy_choice.
CREATE TEMP TABLE policy_choice AS
SELECT rule_id, machine, exported_at
FROM raw_rules
QUALIFY row_number() OVER (PARTITION BY rule_id ORDER BY exported_at DESC, machine) = 1;
