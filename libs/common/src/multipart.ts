/**
 * `multipart/form-data` bodies as the HTTP edge hands them to the routes that take them (docs/http-edge.md
 * "Bodies"). A route opts in with `config.multipart` (these options); every other route answers 415.
 */
export interface MultipartRouteOptions {
  /** A file larger than this is kept without its bytes (`tooLarge`), so the route can refuse that file alone. */
  maxFileBytes: number;
  /** Files per request at most (400 past it). */
  maxFiles: number;
  /** Non-file fields per request at most. */
  maxFields: number;
  /** Bytes of one non-file field at most. */
  maxFieldBytes: number;
}

export interface MultipartFile {
  /** The form field's name (`file`). */
  fieldName: string;
  /** The file's name as sent, without any directory part; may be empty. */
  fileName: string;
  /** The Content-Type the client declared for the part: informational only, never trusted. */
  declaredType: string;
  /** The bytes; null when the file was over `maxFileBytes`. */
  bytes: Buffer | null;
  /** Bytes received for the part. */
  size: number;
  tooLarge: boolean;
}

export interface MultipartBody {
  files: MultipartFile[];
  /** Non-file fields by name (the last one wins when a name repeats). */
  fields: Record<string, string>;
}

/** Whether a parsed body is a multipart body (what a route declared `@Body()` of gets). */
export function isMultipartBody(body: unknown): body is MultipartBody {
  return typeof body === 'object' && body !== null && Array.isArray((body as MultipartBody).files) && typeof (body as MultipartBody).fields === 'object';
}
