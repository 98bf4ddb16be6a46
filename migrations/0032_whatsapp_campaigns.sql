ALTER TABLE `campaigns` ADD `whatsapp_number_id` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `whatsapp_template` text;