/** A column heading; `hidden` names a column of buttons for screen readers only (the cell shows no heading). */
export type Column = string | { hidden: string };

/** The header row of a data table: every heading a `scope="col"` cell (axe: th-has-data-cells, empty-table-header). */
export function TableHead({ columns }: { columns: readonly Column[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) =>
          typeof column === 'string' ? (
            <th scope="col" key={column}>
              {column}
            </th>
          ) : (
            <th scope="col" key={column.hidden}>
              <span className="visually-hidden">{column.hidden}</span>
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}
