import { describe, expect, it } from 'vitest';
import { parseDevArgs } from '../../scripts/dev-args.mjs';

describe('parseDevArgs (npm run dev -- <flags>)', () => {
	const cases: [
		string,
		string[],
		Record<string, string>,
		{ port: string; ip: string; protocol: string; wranglerArgs: string[] },
	][] = [
		['defaults to 8787 on 127.0.0.1', [], {}, { port: '8787', ip: '127.0.0.1', protocol: 'http', wranglerArgs: [] }],
		[
			'takes PORT when no flag is given',
			[],
			{ PORT: '9000' },
			{ port: '9000', ip: '127.0.0.1', protocol: 'http', wranglerArgs: [] },
		],
		[
			'takes --port N over PORT',
			['--port', '3000'],
			{ PORT: '9000' },
			{ port: '3000', ip: '127.0.0.1', protocol: 'http', wranglerArgs: [] },
		],
		['takes --port=N', ['--port=3000'], {}, { port: '3000', ip: '127.0.0.1', protocol: 'http', wranglerArgs: [] }],
		['takes -p N', ['-p', '3001'], {}, { port: '3001', ip: '127.0.0.1', protocol: 'http', wranglerArgs: [] }],
		[
			'lets the last port win, as wrangler does',
			['--port', '3000', '-p=3002'],
			{},
			{ port: '3002', ip: '127.0.0.1', protocol: 'http', wranglerArgs: [] },
		],
		['takes --ip', ['--ip', '0.0.0.0'], {}, { port: '8787', ip: '0.0.0.0', protocol: 'http', wranglerArgs: [] }],
		[
			'passes every other flag to wrangler unchanged and in order',
			['--local-protocol', 'https', '--port', '3000', '--var', 'A:b', '--live-reload'],
			{},
			{
				port: '3000',
				ip: '127.0.0.1',
				protocol: 'https',
				wranglerArgs: ['--local-protocol', 'https', '--var', 'A:b', '--live-reload'],
			},
		],
		[
			'does not mistake a flag that merely starts like --port',
			['--portable'],
			{},
			{ port: '8787', ip: '127.0.0.1', protocol: 'http', wranglerArgs: ['--portable'] },
		],
	];
	for (const [name, argv, env, expected] of cases) {
		it(name, () => {
			expect(parseDevArgs(argv, env)).toEqual(expected);
		});
	}

	it.each([
		[['--port'], /--port needs a value/],
		[['--port', '--live-reload'], /--port needs a value/],
		[['--port', 'abc'], /Invalid port "abc"/],
		[['--port=70000'], /Invalid port "70000"/],
		[['-p', '0'], /Invalid port "0"/],
		[['--remote'], /--remote is not for npm run dev/],
		[['--persist-to', '/tmp/other'], /--persist-to is not for npm run dev/],
		[['--persist-to=/tmp/other'], /--persist-to is not for npm run dev/],
		[['-c', 'other.toml'], /-c is not for npm run dev/],
		[['--env', 'staging'], /--env is not for npm run dev/],
	])('refuses %j with a readable message', (argv, message) => {
		expect(() => parseDevArgs(argv, {})).toThrow(message);
	});

	it('refuses an invalid PORT', () => {
		expect(() => parseDevArgs([], { PORT: 'http' })).toThrow(/Invalid port "http"/);
	});
});
