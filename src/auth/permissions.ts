import { z } from '@hono/zod-openapi';
import { PERMISSIONS } from '../model/permissions';

export { hasPermission, PERMISSIONS, type Permission } from '../model/permissions';

export const permissionSchema = z.enum(PERMISSIONS);
