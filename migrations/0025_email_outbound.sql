ALTER TABLE `email_settings` ADD `link_origin` text;--> statement-breakpoint
ALTER TABLE `email_settings` ADD `sender_error` text;--> statement-breakpoint
CREATE INDEX `mail_deliveries_status` ON `mail_deliveries` (`status`,`updated_at`);