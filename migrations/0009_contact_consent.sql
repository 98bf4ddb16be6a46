ALTER TABLE `contacts` ADD `opted_out_at` integer;--> statement-breakpoint
ALTER TABLE `contacts` ADD `opted_out_source` text;