ALTER TABLE `conversations` ADD `subject` text;--> statement-breakpoint
ALTER TABLE `email_addresses` ADD `origin` text;