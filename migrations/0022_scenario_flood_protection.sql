CREATE TABLE `automation_settings` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`scenario_runs_per_minute` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `scenario_runs` ADD `hops` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `scenarios` ADD `paused_at` integer;--> statement-breakpoint
ALTER TABLE `scenarios` ADD `paused_runs_per_minute` integer;--> statement-breakpoint
ALTER TABLE `scenarios` ADD `resumed_at` integer;