"""An old DAG file of the same project that no longer imports (an Airflow 1
import path, removed): Airflow logs its import error in every run of the
project's other DAGs."""
from airflow.sdk import dag

from airflow.operators.python_operator import PythonOperator  # removed in Airflow 3


@dag(schedule=None)
def legacy():
    PythonOperator(task_id="noop", python_callable=lambda: None)


legacy()
