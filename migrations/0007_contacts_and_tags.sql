CREATE INDEX `contact_tags_tag` ON `contact_tags` (`tag_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_created` ON `contacts` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `deals_workspace_contact` ON `deals` (`workspace_id`,`contact_id`,`status`);