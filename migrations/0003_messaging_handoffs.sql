CREATE TABLE `messaging_handoffs` (
	`workspace_id` text NOT NULL,
	`ref` text NOT NULL,
	`channel` text NOT NULL,
	`origin` text NOT NULL,
	`session_id` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `ref`)
);
