// The live sections of `npm run bench`: the fan-out at each size (the same conversations, grown) with the ratio
// of the largest size's per-message figures to the smallest's, and the single room. A failure is a warning
// and a null result, so the figures already measured are still written; a delivery fault is a loud warning.
import { openFanout } from './fanout.mjs';
import { ratio } from './report-format.mjs';
import { measureRoom } from './room.mjs';

function shout(log, what, counts) {
	const banner = '!'.repeat(78);
	for (const line of [banner, `${what} (a server bug): ${counts}`, banner]) log(line);
}

/**
 * Runs the fan-out at each of `sizes` (ascending): grows the conversations to the size, then measures. Returns
 * `{ runs, largeOverSmall }`, or null when the set-up or a run failed.
 */
export async function fanoutSection({ baseUrl, workspace, sizes, loop, health, warnings, log }) {
	const fanout = openFanout({ baseUrl, workspaceId: workspace.workspaceId, token: workspace.token });
	const runs = [];
	try {
		for (const size of sizes) {
			log(`measuring fan-out: ${size} conversations, each with a visitor and an operator socket`);
			const setupSeconds = await fanout.grow(size);
			// One message into every conversation first, timed on its own: each room has been idle since its
			// set-up, and those idle longest have been put to sleep (a woken room reopens its storage). The closed
			// loop then measures rooms in use.
			const firstPass = await fanout.measure({ concurrency: loop.concurrency, sends: size });
			checkFanout(firstPass, warnings, log);
			const run = await fanout.measure(loop);
			run.firstPass = {
				deliveredPerSecond: firstPass.deliveredPerSecond,
				visitorReceipt: firstPass.visitorReceipt,
				exactlyOnceInOrder: firstPass.exactlyOnceInOrder,
			};
			run.setupSeconds = Number(setupSeconds.toFixed(1));
			run.ratioToHealth = {
				throughput: ratio(run.deliveredPerSecond, health.rps),
				p50: ratio(run.visitorReceipt.p50Ms, health.p50Ms),
			};
			checkFanout(run, warnings, log);
			runs.push(run);
		}
	} catch (error) {
		warnings.push(`fan-out failed: ${error.message}`);
		return null;
	} finally {
		await fanout.close();
	}
	const small = runs[0];
	const large = runs.at(-1);
	return {
		runs,
		// The same work per message at every size: a ratio far from 1 is a cost that grows with open rooms.
		largeOverSmall:
			runs.length < 2
				? null
				: {
						conversations: [small.conversations, large.conversations],
						deliveredPerSecond: ratio(large.deliveredPerSecond, small.deliveredPerSecond),
						visitorReceiptP50: ratio(large.visitorReceipt.p50Ms, small.visitorReceipt.p50Ms),
						visitorReceiptP99: ratio(large.visitorReceipt.p99Ms, small.visitorReceipt.p99Ms),
					},
	};
}

function checkFanout(run, warnings, log) {
	const size = `fan-out (${run.conversations})`;
	if (run.sendErrors > 0)
		warnings.push(`${size}: ${run.sendErrors} of ${run.sent} sends failed (${run.firstSendError})`);
	if (!run.exactlyOnceInOrder) {
		const counts = JSON.stringify({ ...run.delivery, socketsClosedEarly: run.socketsClosedEarly });
		warnings.push(`${size}: messages were NOT delivered exactly once and in order on both sockets: ${counts}`);
		shout(log, `FAN-OUT DELIVERY FAULTS at ${run.conversations} conversations`, counts);
	}
}

/** Runs the single-room measurement and checks what it stored and delivered. */
export async function roomSection({ baseUrl, workspace, loop, health, warnings, log }) {
	log('measuring one conversation room: 4 visitor tabs and 4 operators sending on their sockets');
	let room;
	try {
		room = await measureRoom({ baseUrl, workspaceId: workspace.workspaceId, token: workspace.token, ...loop });
	} catch (error) {
		warnings.push(`single room failed: ${error.message}`);
		return null;
	}
	room.ratioToHealth = {
		throughput: ratio(room.messagesPerSecond, health.rps),
		p50: ratio(room.ack.p50Ms, health.p50Ms),
	};
	if (room.errors > 0)
		warnings.push(`single room: ${room.errors} of ${room.sent} sends got no ack (${room.firstError})`);
	if (!room.allChecked) {
		const { numbering, storedInD1, delivery, socketsClosedEarly } = room;
		const counts = JSON.stringify({ numbering, storedInD1, delivery, socketsClosedEarly });
		warnings.push(`single room: messages were NOT all stored, numbered and delivered once in order: ${counts}`);
		shout(log, 'SINGLE-ROOM FAULTS', counts);
	}
	return room;
}
