// The input every verification activity receives from its workflow.
export interface VerifyActivityInput<T> {
  input: T;
  org_id: string | null;
  workflow_id: string;
}
