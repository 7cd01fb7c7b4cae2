import { Injectable, ValidationPipe, type ArgumentMetadata, type PipeTransform, type ValidationError } from '@nestjs/common';
import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, getMetadataStorage, IsArray, IsDefined, IsNumber, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { invalidField } from '@ramp/contracts';

/** A required string field: "<field>: is required", "<field>: must be a string". */
export const RequiredString = (maxLength = 200): PropertyDecorator =>
  applyDecorators(
    IsDefined({ message: 'is required' }),
    IsString({ message: 'must be a string' }),
    MaxLength(maxLength, { message: `must be at most ${maxLength} characters` }),
  );

export const OptionalString = (maxLength = 200): PropertyDecorator =>
  applyDecorators(IsOptional(), IsString({ message: 'must be a string' }), MaxLength(maxLength, { message: `must be at most ${maxLength} characters` }));

/** A required array of strings (each at most `maxLength`); what the strings may be is the service's to check. */
export const RequiredStringArray = (maxItems: number, maxLength = 100): PropertyDecorator =>
  applyDecorators(
    IsDefined({ message: 'is required' }),
    IsArray({ message: 'must be an array of strings' }),
    ArrayMaxSize(maxItems, { message: `must have at most ${maxItems} entries` }),
    IsString({ each: true, message: 'must contain only strings' }),
    MaxLength(maxLength, { each: true, message: `must contain strings of at most ${maxLength} characters` }),
  );

/**
 * The query parameters of a list: each must be one of `allowed` and given once, or INVALID_REQUEST names it.
 */
export function queryParameters<K extends string>(query: Record<string, unknown>, allowed: readonly K[]): Partial<Record<K, string>> {
  const parameters: Partial<Record<K, string>> = {};
  for (const [name, value] of Object.entries(query)) {
    if (!(allowed as readonly string[]).includes(name))
      throw invalidField(name, allowed.length ? `is not a parameter; use ${allowed.join(', ')}` : 'is not a parameter: this route takes none');
    if (typeof value !== 'string') throw invalidField(name, 'must be given once');
    parameters[name as K] = value;
  }
  return parameters;
}

/** An optional JSON object, whose fields the service checks (naming `<field>.<name>` in its errors). */
export const OptionalObject = (): PropertyDecorator => applyDecorators(IsOptional(), IsObject({ message: 'must be an object' }));

export const OptionalNumber = (): PropertyDecorator =>
  applyDecorators(IsOptional(), IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'must be a number' }));

const validation = new ValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: true,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
  exceptionFactory: (errors: ValidationError[]) => {
    const first = errors[0];
    const field = first?.property ?? 'body';
    const constraints = first?.constraints ?? {};
    if (constraints['whitelistValidation']) return invalidField(field, 'is not a field of this request');
    return invalidField(field, Object.values(constraints)[0] ?? 'is invalid');
  },
});

/**
 * Request bodies: a JSON object (an absent body counts as `{}`), then the DTO's rules. The first broken rule is
 * reported as INVALID_REQUEST naming the field; unknown fields are refused rather than silently ignored.
 */
@Injectable()
export class BodyPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const body = value === undefined || value === null ? {} : value;
    if (typeof body !== 'object' || Array.isArray(body)) throw invalidField('body', 'must be a JSON object', 'MALFORMED_REQUEST');
    // Checked on the body as parsed: class-transformer drops some names (`prototype`) before the whitelist sees them.
    if (metadata.metatype) {
      const fields = fieldsOf(metadata.metatype);
      const unknown = Object.keys(body).find((name) => !fields.has(name));
      if (unknown !== undefined) throw invalidField(unknown, 'is not a field of this request');
    }
    return validation.transform(body, metadata);
  }
}

const FIELDS = new WeakMap<object, Set<string>>();

/** The fields a DTO declares (those with a validation decorator). */
function fieldsOf(type: NonNullable<ArgumentMetadata['metatype']>): Set<string> {
  let fields = FIELDS.get(type);
  if (!fields) {
    fields = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(type, '', true, false)
        .map((rule) => rule.propertyName),
    );
    FIELDS.set(type, fields);
  }
  return fields;
}

/** The body of operations that take none (resend, test, sandbox reset): send `{}` or nothing; any field is refused. */
export class NoFieldsRequest {}
