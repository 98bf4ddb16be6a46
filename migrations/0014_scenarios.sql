CREATE TABLE `automation_versions` (
	`workspace_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`version` integer NOT NULL,
	`definition` text NOT NULL,
	`published_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`owner_id`, `version`)
);
--> statement-breakpoint
CREATE TABLE `scenario_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`scenario_id` text NOT NULL,
	`version` integer NOT NULL,
	`trigger` text NOT NULL,
	`source` text,
	`dedupe_key` text,
	`input` text NOT NULL,
	`status` text NOT NULL,
	`state` text NOT NULL,
	`pending` text,
	`retry_state` text,
	`retries` integer NOT NULL,
	`log` text NOT NULL,
	`error` text,
	`resume_at` integer,
	`turn` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `scenario_runs_dedupe` ON `scenario_runs` (`scenario_id`,`dedupe_key`);--> statement-breakpoint
CREATE INDEX `scenario_runs_scenario` ON `scenario_runs` (`workspace_id`,`scenario_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `scenario_steps` (
	`run_id` text NOT NULL,
	`key` text NOT NULL,
	`workspace_id` text NOT NULL,
	`result` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`run_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `scenario_webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`scenario_id` text NOT NULL,
	`name` text NOT NULL,
	`auth` text NOT NULL,
	`secret_version` integer NOT NULL,
	`enabled` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `scenario_webhooks_scenario` ON `scenario_webhooks` (`workspace_id`,`scenario_id`);--> statement-breakpoint
CREATE TABLE `scenarios` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`enabled` integer NOT NULL,
	`trigger` text NOT NULL,
	`event_types` text NOT NULL,
	`condition` text,
	`cron` text,
	`next_fire_at` integer,
	`draft` text NOT NULL,
	`published_version` integer,
	`last_version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `scenarios_workspace_name` ON `scenarios` (`workspace_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `scenarios_workspace_trigger` ON `scenarios` (`workspace_id`,`trigger`);--> statement-breakpoint
CREATE INDEX `scenarios_next_fire` ON `scenarios` (`next_fire_at`);--> statement-breakpoint
-- Bots' versions move into the table every versioned automation shares (bot_versions is dropped by 0015).
INSERT INTO `automation_versions` (`workspace_id`, `owner_id`, `version`, `definition`, `published_by`, `created_at`)
	SELECT `workspace_id`, `bot_id`, `version`, `definition`, `published_by`, `created_at` FROM `bot_versions`;
