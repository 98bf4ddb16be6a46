-- SQLite adds a NOT NULL column only with a default; every writer sets it, and existing rows take
-- updated_at, the best time known for their last status change (what the reopen guard used before).
ALTER TABLE `conversations` ADD `status_changed_at` integer NOT NULL DEFAULT 0;--> statement-breakpoint
UPDATE `conversations` SET `status_changed_at` = `updated_at`;
