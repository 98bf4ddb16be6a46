CREATE TABLE `automation_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`enabled` integer NOT NULL,
	`priority` integer NOT NULL,
	`trigger_kind` text NOT NULL,
	`trigger` text NOT NULL,
	`condition` text,
	`actions` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `automation_rules_workspace` ON `automation_rules` (`workspace_id`,`priority`,`created_at`);--> statement-breakpoint
CREATE INDEX `automation_rules_trigger` ON `automation_rules` (`trigger_kind`,`enabled`);--> statement-breakpoint
CREATE TABLE `rule_executions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`conversation_id` text,
	`contact_id` text,
	`status` text NOT NULL,
	`reason` text,
	`outcomes` text NOT NULL,
	`depth` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rule_executions_event` ON `rule_executions` (`rule_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `rule_executions_workspace` ON `rule_executions` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `rule_executions_rule` ON `rule_executions` (`workspace_id`,`rule_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `rule_executions_conversation` ON `rule_executions` (`workspace_id`,`conversation_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `rule_executions_created` ON `rule_executions` (`created_at`);--> statement-breakpoint
ALTER TABLE `conversations` ADD `waiting_since` integer;--> statement-breakpoint
CREATE INDEX `conversations_waiting` ON `conversations` (`workspace_id`,`waiting_since`);--> statement-breakpoint
-- Conversations waiting now: since the customer's first message after the last operator reply.
UPDATE `conversations` SET `waiting_since` = (
	SELECT MIN(m.`created_at`) FROM `messages` m
	WHERE m.`conversation_id` = `conversations`.`id` AND m.`author_kind` = 'contact'
	AND m.`seq` > COALESCE((SELECT MAX(o.`seq`) FROM `messages` o WHERE o.`conversation_id` = `conversations`.`id` AND o.`author_kind` = 'operator'), 0)
) WHERE `status` != 'closed';
