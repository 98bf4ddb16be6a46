-- The old inbound webhooks could not be attached to a scenario (none existed), so their runs never ran: they
-- are dropped rather than moved, and a scenario's webhooks (scenario_webhooks) replace them. Bot versions
-- were copied into automation_versions by 0014.
DROP TABLE `bot_versions`;--> statement-breakpoint
DROP TABLE `inbound_webhooks`;--> statement-breakpoint
DROP TABLE `workflow_runs`;