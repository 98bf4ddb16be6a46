ALTER TABLE `contacts` ADD `short_id` text GENERATED ALWAYS AS (substr(id, -5)) VIRTUAL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `snoozed_until` integer;--> statement-breakpoint
CREATE INDEX `conversations_status_waiting` ON `conversations` (`workspace_id`,`status`,`waiting_since`,`id`);--> statement-breakpoint
-- Hand-written below (drizzle-kit knows no virtual tables): the search indexes, see docs/decisions/0075.
-- Message text: an external-content FTS5 index (it stores the index, never a second copy of the text), kept by
-- triggers, so the statement that writes a message (the room's outbox batch) indexes it, and a row deleted or
-- whose text changes leaves the index with it.
CREATE VIRTUAL TABLE `messages_fts` USING fts5(body, content='messages', tokenize='unicode61 remove_diacritics 2');--> statement-breakpoint
CREATE TRIGGER `messages_fts_insert` AFTER INSERT ON `messages` BEGIN
	INSERT INTO messages_fts (rowid, body) VALUES (new.rowid, new.body);
END;--> statement-breakpoint
CREATE TRIGGER `messages_fts_delete` AFTER DELETE ON `messages` BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, body) VALUES ('delete', old.rowid, old.body);
END;--> statement-breakpoint
CREATE TRIGGER `messages_fts_update` AFTER UPDATE OF body ON `messages` BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, body) VALUES ('delete', old.rowid, old.body);
	INSERT INTO messages_fts (rowid, body) VALUES (new.rowid, new.body);
END;--> statement-breakpoint
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');--> statement-breakpoint
-- Contacts: name, e-mail, phone and the short id, by trigram, so any part of three characters or more is found
-- ("2PEK", "gmail", "0100") through the index.
CREATE VIRTUAL TABLE `contacts_fts` USING fts5(name, email, phone, short_id, content='contacts', tokenize='trigram');--> statement-breakpoint
CREATE TRIGGER `contacts_fts_insert` AFTER INSERT ON `contacts` BEGIN
	INSERT INTO contacts_fts (rowid, name, email, phone, short_id) VALUES (new.rowid, new.name, new.email, new.phone, new.short_id);
END;--> statement-breakpoint
CREATE TRIGGER `contacts_fts_delete` AFTER DELETE ON `contacts` BEGIN
	INSERT INTO contacts_fts (contacts_fts, rowid, name, email, phone, short_id) VALUES ('delete', old.rowid, old.name, old.email, old.phone, old.short_id);
END;--> statement-breakpoint
CREATE TRIGGER `contacts_fts_update` AFTER UPDATE OF name, email, phone ON `contacts` BEGIN
	INSERT INTO contacts_fts (contacts_fts, rowid, name, email, phone, short_id) VALUES ('delete', old.rowid, old.name, old.email, old.phone, old.short_id);
	INSERT INTO contacts_fts (rowid, name, email, phone, short_id) VALUES (new.rowid, new.name, new.email, new.phone, new.short_id);
END;--> statement-breakpoint
INSERT INTO contacts_fts (contacts_fts) VALUES ('rebuild');
