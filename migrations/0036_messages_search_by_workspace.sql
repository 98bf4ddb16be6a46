-- Hand-written (drizzle-kit knows no virtual tables), see docs/decisions/0079: the message search index gains
-- the workspace as a column of its own, so a search asks the index for the workspace's rows (its id is one
-- token) together with the words, instead of the index answering with every workspace's matches and the join
-- keeping the workspace's. Rebuilt once from `messages`; the triggers keep it as before.
DROP TRIGGER `messages_fts_insert`;--> statement-breakpoint
DROP TRIGGER `messages_fts_delete`;--> statement-breakpoint
DROP TRIGGER `messages_fts_update`;--> statement-breakpoint
DROP TABLE `messages_fts`;--> statement-breakpoint
CREATE VIRTUAL TABLE `messages_fts` USING fts5(body, workspace_id, content='messages', tokenize='unicode61 remove_diacritics 2');--> statement-breakpoint
CREATE TRIGGER `messages_fts_insert` AFTER INSERT ON `messages` BEGIN
	INSERT INTO messages_fts (rowid, body, workspace_id) VALUES (new.rowid, new.body, new.workspace_id);
END;--> statement-breakpoint
CREATE TRIGGER `messages_fts_delete` AFTER DELETE ON `messages` BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, body, workspace_id) VALUES ('delete', old.rowid, old.body, old.workspace_id);
END;--> statement-breakpoint
CREATE TRIGGER `messages_fts_update` AFTER UPDATE OF body ON `messages` BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, body, workspace_id) VALUES ('delete', old.rowid, old.body, old.workspace_id);
	INSERT INTO messages_fts (rowid, body, workspace_id) VALUES (new.rowid, new.body, new.workspace_id);
END;--> statement-breakpoint
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
