CREATE TABLE `api_logs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`at` integer NOT NULL,
	`operator_id` text NOT NULL,
	`credential` text NOT NULL,
	`hint` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`status` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`rate_remaining` integer,
	`rate_limited` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `api_logs_workspace` ON `api_logs` (`workspace_id`,`at`);--> statement-breakpoint
CREATE INDEX `api_logs_at` ON `api_logs` (`at`);--> statement-breakpoint
CREATE TABLE `console_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`operator_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`user_agent` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `console_sessions_token_hash_unique` ON `console_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `console_sessions_operator` ON `console_sessions` (`workspace_id`,`operator_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `operator_passwords` (
	`operator_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`hash` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `password_links` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`operator_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`purpose` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `password_links_token_hash_unique` ON `password_links` (`token_hash`);--> statement-breakpoint
CREATE INDEX `password_links_operator` ON `password_links` (`operator_id`);--> statement-breakpoint
CREATE INDEX `operators_email` ON `operators` (`email`);